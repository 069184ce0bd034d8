import { verifyMessage } from "ethers";
import { SyndicateClient, SyndicateEnvironment, SyndicateError } from "@syndicateio/syndicate-node";
import { openWalletKey } from "@relay/custody";
import { createWalletRepository } from "@relay/db";
import { createProducer } from "@relay/queue";
import {
  addChain,
  createProjectFixture,
  createTestDatabase,
  fund,
  readTransaction,
  setOrderCall,
  startRecorderChain,
  waitForStatus,
  type ProjectFixture,
  type RecorderChain,
  type TestDatabase,
} from "@relay/testing";
import { post, startHarness, type Harness } from "../support/harness";

const CHAIN_ID = 31_820;
/** The gateway's and the tx-worker's wallet state is at most 5 s old (docs/wallets.md). */
const CACHES_MS = 5_500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the SDK threw: its status and the body's message. */
async function refusal(call: Promise<unknown>): Promise<{ statusCode: number | undefined; message: string }> {
  try {
    await call;
  } catch (e) {
    if (!(e instanceof SyndicateError)) throw e;
    return { statusCode: e.statusCode, message: String((e.body as { message?: unknown } | undefined)?.message) };
  }
  throw new Error("the call succeeded");
}

/**
 * Syndicate's wallet methods through the pinned SDK (response validation on) against the real
 * gateway, signing worker, tx-worker, Postgres, Redis and anvil.
 */
describe("Syndicate SDK: wallets", () => {
  let h: Harness;
  let database: TestDatabase;
  let chain: RecorderChain;
  let project: ProjectFixture;
  let sdk: SyndicateClient;
  let a: string;
  let b: string;

  const send = async (id: number) => {
    const { transactionId } = await sdk.transact.sendTransaction({ projectId: project.projectId, chainId: CHAIN_ID, contractAddress: chain.recorder.address, ...setOrderCall(id, chain.recorder.address) });
    return transactionId;
  };
  const finished = (id: string) => waitForStatus(h.baseUrl, project.apiKey, project.projectId, id);

  beforeAll(async () => {
    chain = await startRecorderChain({ chainId: CHAIN_ID, port: 18_201 });
    // A database of its own: the wallet list has a row per configured chain, and other tests add theirs.
    database = await createTestDatabase({ migrate: true });
    h = await startHarness("syndicate-wallets", {}, { databaseUrl: database.url });
    await addChain(h.db, chain.anvil);
    await h.startTxWorker();
    project = await createProjectFixture(h.db, h.kek, { wallets: 0 });
    (SyndicateEnvironment as { Production: string }).Production = h.baseUrl;
    sdk = new SyndicateClient({ token: project.apiKey });
  });
  afterAll(async () => {
    await h?.close();
    await database?.drop();
    await chain?.stop();
  });

  it("createWallet: a new key sealed under the KEK, whose address signs for the project", async () => {
    const created = await sdk.wallet.createWallet({ projectId: project.projectId, chainId: CHAIN_ID });
    expect(created.projectId).toBe(project.projectId);
    a = created.walletAddress;
    b = (await sdk.wallet.createWallet({ projectId: project.projectId, chainId: CHAIN_ID, type: "BROADCAST" })).walletAddress;
    expect(a).not.toBe(b);

    const wallets = createWalletRepository(h.db);
    for (const address of [a, b]) {
      const record = await wallets.findByAddress(address);
      expect(record).toMatchObject({ projectId: project.projectId, isActive: true, retiredAt: null, walletType: "BROADCAST" });
      const stored = await wallets.findWithKey(record!.id);
      expect(stored!.encryptedKey).not.toContain(address.slice(2).toLowerCase());
      expect(openWalletKey(h.kek, stored!).address).toBe(address);
    }
    const signed = await post(h.baseUrl, `/wallet/project/${project.projectId}/personalSign`, { signerAddress: a, message: "hello" }, project.apiKey);
    expect(signed.status).toBe(200);
    expect(verifyMessage("hello", signed.body.signature as string)).toBe(a);
    // No key material in the logs of the gateway and workers.
    const key = openWalletKey(h.kek, (await wallets.findWithKey((await wallets.findByAddress(a))!.id))!).privateKey.slice(2);
    expect(h.logs.join("").toLowerCase()).not.toContain(key);
  });

  it("createWallet refuses a chain the relay does not have, and another project's key", async () => {
    const unknown = await refusal(sdk.wallet.createWallet({ projectId: project.projectId, chainId: 999_999 }));
    expect(unknown).toMatchObject({ statusCode: 400, message: expect.stringMatching(/^chainId 999999 is not configured/) });
    const other = await createProjectFixture(h.db, h.kek, { wallets: 0 });
    expect((await refusal(new SyndicateClient({ token: other.apiKey }).wallet.createWallet({ projectId: project.projectId, chainId: CHAIN_ID }))).statusCode).toBe(403);
    expect(await createWalletRepository(h.db).listByProject(project.projectId)).toHaveLength(2);
  });

  it("toggleIsActive: a deactivated wallet takes no new send while its transaction in flight finishes; reactivated, it is used again", async () => {
    await fund(chain.anvil.rpcUrl, [a, b]);
    // A sends alone at first: B deactivated.
    const off = await sdk.wallet.toggleIsActive({ projectId: project.projectId, walletAddress: b });
    expect(off).toMatchObject({ walletAddress: b, isActive: false, chainId: CHAIN_ID, walletType: "BROADCAST", projectId: project.projectId });
    expect(off.updatedAt).toBeInstanceOf(Date);
    await sleep(CACHES_MS);
    const fromA = await Promise.all([1, 2, 3, 4].map(send));
    for (const id of fromA) expect(await finished(id)).toMatchObject({ status: "CONFIRMED", from: a });

    // Now B alone, with blocks mined only on request: its transaction is in flight when B is deactivated.
    await sdk.wallet.toggleIsActive({ projectId: project.projectId, walletAddress: b });
    await sdk.wallet.toggleIsActive({ projectId: project.projectId, walletAddress: a });
    await sleep(CACHES_MS);
    await chain.recorder.provider.send("evm_setAutomine", [false]);
    try {
      const inFlight = await send(10);
      expect(await waitForStatus(h.baseUrl, project.apiKey, project.projectId, inFlight, ["SUBMITTED"])).toMatchObject({ from: b });
      await sdk.wallet.toggleIsActive({ projectId: project.projectId, walletAddress: b });
      await sdk.wallet.toggleIsActive({ projectId: project.projectId, walletAddress: a });
      await sleep(CACHES_MS);
      const after = await send(11);
      await chain.recorder.provider.send("evm_setAutomine", [true]);
      await chain.recorder.provider.send("evm_mine", []);
      expect(await finished(inFlight)).toMatchObject({ status: "CONFIRMED", from: b, nonce: "0" });
      expect(await finished(after)).toMatchObject({ status: "CONFIRMED", from: a });
    } finally {
      await chain.recorder.provider.send("evm_setAutomine", [true]);
    }

    // Reactivated (A off): B is used again.
    await sdk.wallet.toggleIsActive({ projectId: project.projectId, walletAddress: b });
    await sdk.wallet.toggleIsActive({ projectId: project.projectId, walletAddress: a });
    await sleep(CACHES_MS);
    expect(await finished(await send(12))).toMatchObject({ status: "CONFIRMED", from: b, nonce: "1" });
    // Both active again.
    const on = await sdk.wallet.toggleIsActive({ projectId: project.projectId, walletAddress: a });
    expect(on.isActive).toBe(true);
  });

  it("retireWallet: never chosen again, never deleted (its key still opens), and never reactivated", async () => {
    const gas = await refusal(sdk.wallet.retireWallet({ projectId: project.projectId, walletAddress: b, gasRecipient: a }));
    expect(gas).toMatchObject({ statusCode: 400, message: expect.stringMatching(/^gasRecipient is not supported/) });
    const retired = await sdk.wallet.retireWallet({ projectId: project.projectId, walletAddress: b });
    expect(retired).toEqual({ projectId: project.projectId, walletAddress: b });
    const again = await refusal(sdk.wallet.toggleIsActive({ projectId: project.projectId, walletAddress: b }));
    expect(again).toMatchObject({ statusCode: 400, message: expect.stringMatching(/^walletAddress .* is retired/) });

    const wallets = createWalletRepository(h.db);
    const record = await wallets.findByAddress(b);
    expect(record).toMatchObject({ isActive: false, retiredAt: expect.any(Date) });
    expect(openWalletKey(h.kek, (await wallets.findWithKey(record!.id))!).address).toBe(b);

    await sleep(CACHES_MS);
    const ids = await Promise.all([20, 21, 22, 23, 24, 25].map(send));
    for (const id of ids) expect(await finished(id)).toMatchObject({ status: "CONFIRMED", from: a });
    // Signing with it is refused too.
    const sign = await post(h.baseUrl, `/wallet/project/${project.projectId}/personalSign`, { signerAddress: b, message: "x" }, project.apiKey);
    expect(sign.status).toBe(400);
    expect(sign.body.message).toMatch(new RegExp(`^signerAddress ${b} is a deactivated or retired wallet`));
  });

  it("getWalletsByProject: a row per wallet and chain, with the next nonce; withData adds the recorded balance and the confirmed count", async () => {
    const plain = await sdk.wallet.getWalletsByProject(project.projectId);
    expect(plain.map((w) => [w.walletAddress, w.chainId, w.nonce, w.isActive])).toEqual([
      [a, CHAIN_ID, 11, true],
      [b, CHAIN_ID, 2, false],
    ]);
    expect(plain[1]).toMatchObject({ retiredAt: expect.any(String) });
    for (const w of plain) expect(w).not.toHaveProperty("balance");

    // The scheduled balance check (once a minute), run now.
    const producer = createProducer({ connection: h.redis, prefix: h.prefix });
    await producer.enqueue("checkBalances", { v: 1 });
    await producer.close();
    let rows = await sdk.wallet.getWalletsByProject(project.projectId, { withData: true });
    for (let i = 0; i < 100 && rows.some((r) => r.balance === undefined); i++) {
      await sleep(100);
      rows = await sdk.wallet.getWalletsByProject(project.projectId, { withData: true });
    }
    for (const [address, txCount] of [
      [a, 11],
      [b, 2],
    ] as const) {
      const row = rows.find((r) => r.walletAddress === address)!;
      expect(row.txCount).toBe(txCount);
      expect(row.balance).toBe((await chain.recorder.provider.getBalance(address)).toString());
      // The relay's field beside Syndicate's: the low-balance state it recorded with the balance.
      const [state] = await h.db.$queryRawUnsafe<{ low: boolean }[]>(`SELECT low FROM wallet_balance_state WHERE address = $1 AND chain_id = $2`, address, CHAIN_ID);
      expect((row as { lowBalance?: boolean }).lowBalance).toBe(state!.low);
    }
  });

  it("a project whose wallets are all inactive: sendTransaction and personalSign are refused with what to do", async () => {
    await sdk.wallet.toggleIsActive({ projectId: project.projectId, walletAddress: a });
    await sleep(CACHES_MS);
    const refused = await refusal(send(30));
    expect(refused).toMatchObject({ statusCode: 400, message: expect.stringMatching(/has no active wallet to send from/) });
    const sign = await post(h.baseUrl, `/wallet/project/${project.projectId}/personalSign`, { signerAddress: a, message: "x" }, project.apiKey);
    expect(sign.status).toBe(400);
    expect(sign.body.message).toMatch(/^signerAddress .* is a deactivated or retired wallet/);
  });

  it("a transaction taken before the project's last active wallet was deactivated waits PENDING, and is sent once a wallet is activated", async () => {
    await sdk.wallet.toggleIsActive({ projectId: project.projectId, walletAddress: a });
    await h.stopTxWorker();
    const id = await send(40);
    await sdk.wallet.toggleIsActive({ projectId: project.projectId, walletAddress: a });
    await h.startTxWorker();
    let waiting = await readTransaction(h.baseUrl, project.apiKey, project.projectId, id);
    for (let i = 0; i < 100 && !waiting.history.some((c) => c.reason?.includes("no active wallet")); i++) {
      await sleep(100);
      waiting = await readTransaction(h.baseUrl, project.apiKey, project.projectId, id);
    }
    expect(waiting).toMatchObject({ status: "PENDING", nonce: null, from: null });
    expect(waiting.history.map((c) => c.reason)).toContain("waiting: the project has no active wallet; it is sent once one is activated (POST /wallet/toggleIsActive)");

    await sdk.wallet.toggleIsActive({ projectId: project.projectId, walletAddress: a });
    expect(await finished(id)).toMatchObject({ status: "CONFIRMED", from: a, nonce: "11" });
    // The wait was noted once, however often the worker looked.
    const tx = await readTransaction(h.baseUrl, project.apiKey, project.projectId, id);
    expect(tx.history.filter((c) => c.reason?.includes("no active wallet"))).toHaveLength(1);
  });

  it("answers 404 for another project's wallet and 403 for another project's key", async () => {
    const other = await createProjectFixture(h.db, h.kek);
    const otherSdk = new SyndicateClient({ token: other.apiKey });
    expect((await refusal(sdk.wallet.toggleIsActive({ projectId: project.projectId, walletAddress: other.wallets[0]!.address }))).statusCode).toBe(404);
    expect((await refusal(sdk.wallet.retireWallet({ projectId: project.projectId, walletAddress: other.wallets[0]!.address }))).statusCode).toBe(404);
    expect((await refusal(otherSdk.wallet.toggleIsActive({ projectId: project.projectId, walletAddress: a }))).statusCode).toBe(403);
    expect((await refusal(otherSdk.wallet.retireWallet({ projectId: project.projectId, walletAddress: a }))).statusCode).toBe(403);
    expect((await refusal(otherSdk.wallet.getWalletsByProject(project.projectId))).statusCode).toBe(403);
    expect((await createWalletRepository(h.db).findByAddress(other.wallets[0]!.address))).toMatchObject({ isActive: true, retiredAt: null });
  });
});
