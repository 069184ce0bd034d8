import { JsonRpcProvider, Transaction } from "ethers";
import { createPool, createTransactionRepository } from "@relay/db";
import {
  addChain,
  createProjectFixture,
  deployRecorder,
  fund,
  readTransaction,
  startAnvil,
  startRpcInterceptor,
  testDatabaseUrl,
  waitForStatus,
  type AnvilInstance,
  type DeployedRecorder,
  type ProjectFixture,
  type RpcInterceptor,
  type TransactionView,
} from "@relay/testing";
import { post, startHarness, type Harness } from "../support/harness";

/**
 * POST …/transactions/{id}/cancel against the real stack, on a node that mines only when told to
 * (`evm_mine`), so every step is taken with the transaction where the test wants it: PENDING (no
 * tx-worker yet), PAUSED (a wallet that cannot pay), SUBMITTED (in the node's pool, not mined),
 * mined before the cancel is sent, and final. After each, the wallet's next transaction goes through.
 */

const STUCK_AFTER_SECONDS = 2;
const FINAL = ["CONFIRMED", "REVERTED", "INVALID", "FAILED", "CANCELLED"];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const setOrder = (id: number) => ({
  functionSignature: "setOrder((uint256 id, address owner, uint8[] flags) order)",
  args: { order: { id, owner: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", flags: [] } },
});

describe("cancelling a transaction", () => {
  let h: Harness;
  let anvil: AnvilInstance;
  let recorder: DeployedRecorder;
  let rpc: JsonRpcProvider;
  let pool: ReturnType<typeof createPool>;
  let project: ProjectFixture;
  let poor: ProjectFixture;

  const send = (who: ProjectFixture, x: number) =>
    post(h.baseUrl, "/transact/sendTransaction", { projectId: who.projectId, chainId: anvil.chainId, contractAddress: recorder.address, ...setOrder(x) }, who.apiKey);
  const control = (who: ProjectFixture, id: string, action: "cancel" | "speedUp") =>
    post(h.baseUrl, `/transact/project/${who.projectId}/transactions/${id}/${action}`, {}, who.apiKey);
  const read = (who: ProjectFixture, id: string) => readTransaction(h.baseUrl, who.apiKey, who.projectId, id);
  const until = async (who: ProjectFixture, id: string, done: (tx: TransactionView) => boolean, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const tx = await read(who, id);
      if (done(tx)) return tx;
      if (Date.now() > deadline) throw new Error(`transaction ${id} never got there: ${JSON.stringify(tx)}`);
      await sleep(100);
    }
  };
  /** Mines a block every 200 ms until the transaction is final. */
  const mineUntilFinal = async (who: ProjectFixture, id: string) => {
    const deadline = Date.now() + 40_000;
    for (;;) {
      await rpc.send("evm_mine", []);
      const tx = await read(who, id);
      if (FINAL.includes(tx.status)) return tx;
      if (Date.now() > deadline) throw new Error(`transaction ${id} not final: ${JSON.stringify(tx)}`);
      await sleep(200);
    }
  };
  const lastOrderId = async (): Promise<bigint> => (await recorder.contract.getFunction("lastOrder")()).id as bigint;
  /** The wallet's next transaction is signed, sent and mined: nothing left jams its nonces. */
  const nextGoesThrough = async (who: ProjectFixture, x: number) => {
    const res = await send(who, x);
    expect(res.status).toBe(200);
    const tx = await mineUntilFinal(who, res.body.transactionId as string);
    expect(tx.status).toBe("CONFIRMED");
    expect(await lastOrderId()).toBe(BigInt(x));
    return tx;
  };

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 31_611 });
    recorder = await deployRecorder(anvil.rpcUrl); // needs mining: before automine goes off
    rpc = new JsonRpcProvider(anvil.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
    await rpc.send("evm_setAutomine", [false]);
    h = await startHarness("cancel-tx");
    pool = createPool({ url: testDatabaseUrl() });
    await addChain(h.db, anvil, { stuckAfterSeconds: STUCK_AFTER_SECONDS });
    project = await createProjectFixture(h.db, h.kek, { wallets: 1 });
    poor = await createProjectFixture(h.db, h.kek, { wallets: 1 });
    await fund(anvil.rpcUrl, [project.wallets[0]!.address]);
  });
  afterAll(async () => {
    await h?.close();
    await pool?.end();
    recorder?.provider.destroy();
    rpc?.destroy();
    await anvil?.stop();
  });

  it("PENDING: never sent, CANCELLED at once (a speed-up is refused while nothing is sent); asked again, the same answer", async () => {
    // No tx-worker yet: the transaction stays PENDING.
    const res = await send(project, 101);
    const id = res.body.transactionId as string;
    expect((await read(project, id)).status).toBe("PENDING");

    const speedUp = await control(project, id, "speedUp");
    expect(speedUp.status).toBe(409);
    expect(speedUp.body.message).toMatch(/is PENDING/);

    const cancel = await control(project, id, "cancel");
    expect(cancel.status).toBe(200);
    expect(cancel.body).toEqual({ transactionId: id, status: "CANCELLED", cancel: "done" });
    const tx = await read(project, id);
    expect(tx.status).toBe("CANCELLED");
    expect(tx.history.map((c) => c.status)).toEqual(["PENDING", "CANCELLED"]);
    expect(tx.history[1]!.reason).toMatch(/before it was sent/);
    expect(tx.attempts).toEqual([]);
    expect((await control(project, id, "cancel")).body).toEqual({ transactionId: id, status: "CANCELLED", cancel: "done" });
  });

  it("PENDING with a nonce bound already: CANCELLED, and the nonce does not jam the wallet (a filler takes it)", async () => {
    const res = await send(project, 102);
    const id = res.body.transactionId as string;
    const address = project.wallets[0]!.address;
    // The tx-worker's own first step up to the nonce (it is not running): the nonce is taken.
    const binding = await createTransactionRepository({ sql: pool, db: h.db }).allocateNonce({
      projectId: project.projectId,
      transactionId: id,
      address,
      chainPendingNonce: BigInt(await rpc.getTransactionCount(address, "pending")),
    });
    expect(binding).not.toBeNull();
    const cancel = await control(project, id, "cancel");
    expect(cancel.body).toEqual({ transactionId: id, status: "CANCELLED", cancel: "done" });
    const cancelled = await read(project, id);
    expect(cancelled.nonce).toBe(binding!.nonce.toString());
    expect(cancelled.attempts).toEqual([]);

    await h.startTxWorker();
    const next = await nextGoesThrough(project, 103);
    // The next transaction has the next nonce; the cancelled one's was filled, not reused.
    expect(BigInt(next.nonce!)).toBe(binding!.nonce + 1n);
    expect(await rpc.getTransactionCount(address, "latest")).toBe(Number(binding!.nonce) + 2);
    // The filler is a signature the relay made on its own: in the audit log as the relay's.
    const fillers = await h.db.auditLog.findMany({ where: { walletAddress: address, action: "nonce_filler.signed" } });
    expect(fillers.map((e) => [e.actorType, e.actorId, e.projectId, (e.details as { nonce?: string }).nonce])).toContainEqual(["relay", "relay", project.projectId, binding!.nonce.toString()]);
  });

  it("PAUSED: never sent, CANCELLED at once; once funded, the wallet's next transaction goes through", async () => {
    const res = await send(poor, 201);
    const id = res.body.transactionId as string;
    await waitForStatus(h.baseUrl, poor.apiKey, poor.projectId, id, ["PAUSED"]);
    const cancel = await control(poor, id, "cancel");
    expect(cancel.status).toBe(200);
    expect(cancel.body).toEqual({ transactionId: id, status: "CANCELLED", cancel: "done" });
    const tx = await read(poor, id);
    expect(tx.history.map((c) => c.status)).toEqual(["PENDING", "PAUSED", "CANCELLED"]);
    expect(tx.error).toBeNull();

    await fund(anvil.rpcUrl, [poor.wallets[0]!.address]);
    await nextGoesThrough(poor, 202);
    expect((await read(poor, id)).status).toBe("CANCELLED");
  });

  it("SUBMITTED: a zero-value self-transfer at the same nonce replaces it and mines; CANCELLED, and the call never ran", async () => {
    const before = await lastOrderId();
    const res = await send(project, 301);
    const id = res.body.transactionId as string;
    const submitted = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id, ["SUBMITTED"]);

    const cancel = await control(project, id, "cancel");
    expect(cancel.status).toBe(200);
    expect(cancel.body).toEqual({ transactionId: id, status: "SUBMITTED", cancel: "requested" });
    // A second request while the first is in flight answers the same.
    expect((await control(project, id, "cancel")).body).toEqual({ transactionId: id, status: "SUBMITTED", cancel: "requested" });
    // A speed-up would replace the cancel: refused.
    expect((await control(project, id, "speedUp")).status).toBe(409);

    const sent = await until(project, id, (tx) => tx.attempts.some((a) => a.cancel) && tx.history.some((c) => /cancel requested; replaced with a cancel/.test(c.reason ?? "")));
    const cancelAttempt = sent.attempts.find((a) => a.cancel)!;
    expect(cancelAttempt.nonce).toBe(submitted.nonce);
    const original = submitted.attempts[0]!;
    expect(BigInt(cancelAttempt.maxFeePerGas!) * 1000n).toBeGreaterThanOrEqual(BigInt(original.maxFeePerGas!) * 1125n);

    const tx = await mineUntilFinal(project, id);
    expect(tx.status).toBe("CANCELLED");
    expect(tx.hash).toBe(cancelAttempt.hash);
    expect(tx.history.at(-1)!.reason).toMatch(/self-transfer .* was mined in block \d+; the call never ran/);
    // On chain: the cancel is a 0-value transfer of the wallet to itself with no data; the call was never mined.
    const onChain = await rpc.getTransaction(cancelAttempt.hash);
    expect(onChain!.to).toBe(onChain!.from);
    expect(onChain!.from.toLowerCase()).toBe(tx.from!.toLowerCase());
    expect(onChain!.value).toBe(0n);
    expect(onChain!.data).toBe("0x");
    expect((await rpc.getTransactionReceipt(cancelAttempt.hash))!.status).toBe(1);
    for (const a of tx.attempts.filter((x) => !x.cancel)) expect(await rpc.getTransactionReceipt(a.hash)).toBeNull();
    expect(await lastOrderId()).toBe(before);
    // Each signed attempt is in the audit log by the key that sent the transaction; the cancel as one.
    const audited = await h.db.auditLog.findMany({ where: { projectId: project.projectId, subject: id }, orderBy: { id: "asc" } });
    expect(audited.map((e) => [e.action, e.actorId, (e.details as { hash?: string }).hash])).toEqual(
      tx.attempts.map((a) => [a.cancel ? "transaction.cancel_signed" : "transaction.signed", project.apiKeyId, a.hash]),
    );

    expect((await control(project, id, "cancel")).body).toEqual({ transactionId: id, status: "CANCELLED", cancel: "done" });
    const speedUp = await control(project, id, "speedUp");
    expect(speedUp.status).toBe(409);
    expect(speedUp.body.message).toMatch(/is CANCELLED/);
    await nextGoesThrough(project, 302);
  });

  it("the race the original wins: mined before the cancel is sent, it ends CONFIRMED and the history says the cancel lost", async () => {
    const res = await send(project, 401);
    const id = res.body.transactionId as string;
    await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id, ["SUBMITTED"]);
    // The tx-worker is away while the original is mined and the cancel asked for.
    await h.stopTxWorker();
    await rpc.send("evm_mine", []);
    const cancel = await control(project, id, "cancel");
    expect(cancel.body).toEqual({ transactionId: id, status: "SUBMITTED", cancel: "requested" });
    await h.startTxWorker();

    const tx = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id);
    expect(tx.status).toBe("CONFIRMED");
    expect(tx.history.at(-1)!.reason).toMatch(/a cancel was asked for, but the transaction was mined first \(block \d+\)/);
    expect(tx.attempts.some((a) => a.cancel)).toBe(false);
    expect(await lastOrderId()).toBe(401n);

    const again = await control(project, id, "cancel");
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/is CONFIRMED: a final transaction cannot be cancelled/);
    await nextGoesThrough(project, 402);
  });

  it("an unknown transaction is a 404; an id that is not a UUID a 400", async () => {
    const unknown = "00000000-0000-4000-8000-000000000001";
    expect((await control(project, unknown, "cancel")).status).toBe(404);
    expect((await control(project, unknown, "speedUp")).status).toBe(404);
    const bad = await post(h.baseUrl, `/transact/project/${project.projectId}/transactions/nope/cancel`, {}, project.apiKey);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/transactionId/);
  });
});

/**
 * The window between a signed attempt and the move to SUBMITTED: the node never takes the call's
 * first attempt (its broadcast fails as a node failing does, and is retried), so the transaction
 * stays PENDING with an attempt stored. That attempt might have reached a node before a crash, so
 * the gateway does not call it CANCELLED; the tx-worker sends a cancel at its nonce instead.
 */
describe("cancelling a PENDING transaction whose attempt is signed", () => {
  let h: Harness;
  let anvil: AnvilInstance;
  let recorder: DeployedRecorder;
  let rpc: JsonRpcProvider;
  let interceptor: RpcInterceptor;
  let project: ProjectFixture;
  let refused: string | undefined;

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 31_613 });
    recorder = await deployRecorder(anvil.rpcUrl);
    rpc = new JsonRpcProvider(anvil.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
    await rpc.send("evm_setAutomine", [false]);
    // The first signed transaction is refused every time, as by a node that keeps failing.
    interceptor = await startRpcInterceptor(anvil.rpcUrl, (call) => {
      if (call.method !== "eth_sendRawTransaction") return undefined;
      const hash = Transaction.from(call.params[0] as string).hash!;
      refused ??= hash;
      return hash === refused ? { error: { code: -32603, message: "internal error" } } : undefined;
    });
    h = await startHarness("cancel-signed");
    await addChain(h.db, { ...anvil, rpcUrl: interceptor.url }, { stuckAfterSeconds: STUCK_AFTER_SECONDS });
    project = await createProjectFixture(h.db, h.kek, { wallets: 1 });
    await fund(anvil.rpcUrl, [project.wallets[0]!.address]);
    await h.startTxWorker();
  });
  afterAll(async () => {
    await h?.close();
    await interceptor?.close();
    recorder?.provider.destroy();
    rpc?.destroy();
    await anvil?.stop();
  });

  it("answers requested, sends a self-transfer at the nonce instead of the call, and ends CANCELLED; the call never ran", async () => {
    const res = await post(h.baseUrl, "/transact/sendTransaction", { projectId: project.projectId, chainId: anvil.chainId, contractAddress: recorder.address, ...setOrder(501) }, project.apiKey);
    const id = res.body.transactionId as string;
    const read = () => readTransaction(h.baseUrl, project.apiKey, project.projectId, id);
    let signed = await read();
    // Signed, stored, and its broadcast refused at least once.
    for (const deadline = Date.now() + 20_000; signed.attempts.length === 0 || refused === undefined; signed = await read()) {
      if (Date.now() > deadline) throw new Error(`never signed: ${JSON.stringify(signed)}`);
      await sleep(100);
    }
    expect(signed.status).toBe("PENDING");
    expect(signed.attempts[0]!.hash).toBe(refused);

    const cancel = await post(h.baseUrl, `/transact/project/${project.projectId}/transactions/${id}/cancel`, {}, project.apiKey);
    expect(cancel.status).toBe(200);
    expect(cancel.body).toEqual({ transactionId: id, status: "PENDING", cancel: "requested" });

    let tx = await read();
    for (const deadline = Date.now() + 40_000; !FINAL.includes(tx.status); tx = await read()) {
      if (Date.now() > deadline) throw new Error(`not final: ${JSON.stringify(tx)}`);
      await rpc.send("evm_mine", []);
      await sleep(200);
    }
    expect(tx.status).toBe("CANCELLED");
    expect(tx.history.map((c) => c.status)).toEqual(["PENDING", "SUBMITTED", "CANCELLED"]);
    const [call, selfTransfer] = tx.attempts;
    expect([call!.cancel, selfTransfer!.cancel]).toEqual([false, true]);
    expect(selfTransfer!.nonce).toBe(call!.nonce);
    expect(tx.hash).toBe(selfTransfer!.hash);
    expect(await rpc.getTransactionReceipt(call!.hash)).toBeNull();
    expect((await rpc.getTransaction(selfTransfer!.hash))!.data).toBe("0x");
    expect((await recorder.contract.getFunction("lastOrder")()).id).toBe(0n);
  });
});
