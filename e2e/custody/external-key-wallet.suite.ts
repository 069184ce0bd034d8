import { parseEther, toBeHex, Transaction, verifyMessage, verifyTypedData } from "ethers";
import { CURVE_ORDER, type ExternalKeyBackend } from "@relay/custody";
import { createProjectFundingRepository, createWalletRepository } from "@relay/db";
import {
  addChain,
  createProjectFixture,
  minedTransactions,
  setOrderCall,
  startRecorderChain,
  waitForStatus,
  type ProjectFixture,
  type RecorderChain,
} from "@relay/testing";
import { post, startHarness, type Harness } from "../support/harness";

const FINAL = ["CONFIRMED", "REVERTED", "INVALID", "FAILED", "CANCELLED", "EXPIRED"];
/** EIP-2: Ethereum takes s in the lower half only (anvil does not check; mainnet nodes do). */
const lowS = (signature: { s: string } | null) => BigInt(signature!.s) <= CURVE_ORDER / 2n;

export interface ExternalKeyWalletOptions {
  backend: "HSM" | "KMS";
  /** A chain id of this file's own: files run side by side. */
  chainId: number;
  /** What the wallet record keeps to find the key (HSM: the CKA_ID in hex; KMS: the key's ARN). */
  keyRef: RegExp;
  /** Opens the backend the workers get; `close` undoes whatever it set up. */
  open(): Promise<{ backend: ExternalKeyBackend; close(): Promise<void> }>;
}

export interface ExternalKeyWalletSuite {
  h: Harness;
  chain: RecorderChain;
  project: ProjectFixture;
  /** The wallet POST /wallet/create made in the backend (the suite's first test). */
  wallet: { address: string; id: string; keyRef: string };
  createWallet(body: Record<string, unknown>, project?: ProjectFixture): ReturnType<typeof post>;
}

/**
 * What every backend keeping keys outside the database must do, through the real gateway, signing
 * worker and tx-worker, Postgres, Redis and anvil: POST /wallet/create makes the key in the
 * backend and the wallet list names it; a transaction it signs confirms from that wallet; its
 * personal and typed-data signatures verify with ethers; it tops another project's wallet up as a
 * funding wallet. Call it inside a describe; the returned object (filled in by its beforeAll) lets
 * the file's own tests of that backend use the same harness and wallet.
 */
export function describeExternalKeyWallet(options: ExternalKeyWalletOptions): ExternalKeyWalletSuite {
  const { backend } = options;
  const suite = {} as ExternalKeyWalletSuite;
  let opened: Awaited<ReturnType<ExternalKeyWalletOptions["open"]>> | undefined;

  const get = async (path: string) => {
    const res = await fetch(suite.h.baseUrl + path, { headers: { authorization: `Bearer ${suite.project.apiKey}` } });
    return { status: res.status, body: (await res.json()) as unknown };
  };

  beforeAll(async () => {
    opened = await options.open();
    suite.chain = await startRecorderChain({ chainId: options.chainId });
    const custody = backend === "HSM" ? { hsm: opened.backend } : { kms: opened.backend };
    suite.h = await startHarness(`custody-${backend.toLowerCase()}`, {}, { custody });
    await addChain(suite.h.db, suite.chain.anvil);
    await suite.h.startTxWorker();
    suite.project = await createProjectFixture(suite.h.db, suite.h.kek, { wallets: 0 });
    suite.createWallet = (body, p = suite.project) => post(suite.h.baseUrl, "/wallet/create", { projectId: p.projectId, chainId: suite.chain.anvil.chainId, ...body }, p.apiKey);
  });
  afterAll(async () => {
    await suite.h?.close();
    await opened?.close();
    await suite.chain?.stop();
  });

  it(`POST /wallet/create with backend ${backend} makes the key there; the record and the wallet list name the backend`, async () => {
    const { h, project, chain } = suite;
    const res = await suite.createWallet({ backend });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ projectId: project.projectId, walletAddress: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/), backend });
    const address = res.body.walletAddress as string;
    const wallets = createWalletRepository(h.db);
    const stored = (await wallets.findWithKey((await wallets.findByAddress(address))!.id))!;
    expect(stored).toMatchObject({ backend, encryptedKey: null, keyRef: expect.stringMatching(options.keyRef) });
    suite.wallet = { address, id: stored.id, keyRef: stored.keyRef! };

    const listed = await get(`/wallet/project/${project.projectId}/wallets`);
    expect(listed.status).toBe(200);
    // One row per configured chain (other tests of the run add theirs): each names the backend.
    const rows = listed.body as Array<{ walletAddress: string; backend: string; chainId: number }>;
    expect(rows.filter((r) => r.chainId === chain.anvil.chainId)).toEqual([expect.objectContaining({ walletAddress: address, backend })]);
    expect(rows.every((r) => r.walletAddress === address && r.backend === backend)).toBe(true);
    // A LOCAL wallet beside it says so.
    expect((await suite.createWallet({})).body).toMatchObject({ backend: "LOCAL" });
  });

  it(`a transaction signed by ${backend} is sent and confirms on anvil, from the ${backend} wallet`, async () => {
    const { h, project, chain, wallet } = suite;
    await chain.recorder.provider.send("anvil_setBalance", [wallet.address, toBeHex(parseEther("10"))]);
    // Only the backend's wallet may send: the LOCAL one made above is deactivated.
    const local = (await createWalletRepository(h.db).listByProject(project.projectId)).find((w) => w.backend === "LOCAL")!;
    await createWalletRepository(h.db).setActive(project.projectId, local.address, false);
    await new Promise((r) => setTimeout(r, 5_500)); // the gateway's wallet cache (docs/wallets.md)

    const sent = await post(h.baseUrl, "/transact/sendTransaction", { projectId: project.projectId, chainId: chain.anvil.chainId, contractAddress: chain.recorder.address, ...setOrderCall(7, wallet.address) }, project.apiKey);
    expect(sent.status).toBe(200);
    const tx = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, sent.body.transactionId as string, FINAL, 30_000);
    expect(tx.status).toBe("CONFIRMED");
    expect(tx.from).toBe(wallet.address);
    expect((await chain.recorder.contract.getFunction("lastOrder")()).id).toBe(7n);
    const [mined] = (await minedTransactions(chain.anvil.rpcUrl)).filter((t) => t.from === wallet.address.toLowerCase());
    const raw = await chain.recorder.provider.send("eth_getRawTransactionByHash", [mined!.hash]);
    const signed = Transaction.from(raw as string);
    expect(signed.from).toBe(wallet.address);
    expect(lowS(signed.signature)).toBe(true);
  });

  it(`personal sign and typed data signed by ${backend} verify with ethers`, async () => {
    const { h, project, chain, wallet } = suite;
    const message = `signed by ${backend} ✓`;
    const personal = await post(h.baseUrl, `/wallet/project/${project.projectId}/personalSign`, { signerAddress: wallet.address, message }, project.apiKey);
    expect(personal.status).toBe(200);
    expect(verifyMessage(message, personal.body.signature as string)).toBe(wallet.address);

    const typed = {
      domain: { name: "Relay", version: "1", chainId: chain.anvil.chainId },
      types: { Mail: [{ name: "contents", type: "string" }, { name: "to", type: "address" }] },
      primaryType: "Mail",
      message: { contents: "hello", to: wallet.address },
    };
    const signed = await post(h.baseUrl, `/wallet/project/${project.projectId}/signTypedData`, { signerAddress: wallet.address, ...typed }, project.apiKey);
    expect(signed.status).toBe(200);
    expect(verifyTypedData(typed.domain, typed.types, typed.message, signed.body.signature as string)).toBe(wallet.address);
  });

  it(`a ${backend} funding wallet tops a project's empty wallet up, and the paused call confirms`, async () => {
    const { h, chain } = suite;
    const operator = await createProjectFixture(h.db, h.kek, { wallets: 0 });
    // The backend's name in any case.
    const funding = (await suite.createWallet({ backend: backend.toLowerCase() }, operator)).body.walletAddress as string;
    await chain.recorder.provider.send("anvil_setBalance", [funding, toBeHex(parseEther("10"))]);
    const funded = await createProjectFixture(h.db, h.kek, { wallets: 1 }); // a new LOCAL key: 0 ETH
    await createProjectFundingRepository(h.db).set({ projectId: funded.projectId, chainId: BigInt(chain.anvil.chainId), fundingAddress: funding, targetBalanceWei: parseEther("1") });

    const sent = await post(h.baseUrl, "/transact/sendTransaction", { projectId: funded.projectId, chainId: chain.anvil.chainId, contractAddress: chain.recorder.address, ...setOrderCall(8, funded.wallets[0]!.address) }, funded.apiKey);
    expect(sent.status).toBe(200);
    const call = await waitForStatus(h.baseUrl, funded.apiKey, funded.projectId, sent.body.transactionId as string, FINAL, 30_000);
    expect(call.status).toBe("CONFIRMED");
    expect(call.history.map((c) => c.status)).toContain("PAUSED");
    const topUps = (await minedTransactions(chain.anvil.rpcUrl)).filter((t) => t.from === funding.toLowerCase());
    expect(topUps).toHaveLength(1);
    const topUp = (await chain.recorder.provider.getTransaction(topUps[0]!.hash))!;
    expect({ from: topUp.from, to: topUp.to, value: topUp.value }).toEqual({ from: funding, to: funded.wallets[0]!.address, value: parseEther("1") });
    expect(lowS(topUp.signature)).toBe(true);
  });

  return suite;
}
