import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { JsonRpcProvider, parseEther, toBeHex } from "ethers";
import { encodeCall, parseFunctionSignature } from "@relay/chain";
import { createLogger, isAppError, toError } from "@relay/core";
import type { Database, SqlPool, TransactionRepository } from "@relay/db";
import { RunAgain, type Job } from "@relay/queue";
import { addChain, createProjectFixture, deployRecorder, freePort, startAnvil, startRpcInterceptor, testKek, type AnvilInstance, type DeployedRecorder, type RpcAnswer } from "@relay/testing";
import type { StepDeps } from "../lifecycle/deps";
import { openStepDeps, type StepDepsFixture } from "../lifecycle/step-deps.test-support";
import { createProcessTransactionProcessor } from "./process-transaction.processor";

const logger = createLogger({ name: "process-transaction-test", level: "silent" });
const context = { job: {} as Job, logger };
const ORDER = parseFunctionSignature("setOrder((uint256 id, address owner, uint8[] flags) order)");

/** A JSON-RPC proxy in front of anvil that answers 503 to the methods in `failing`. */
async function startFlakyProxy(upstream: string) {
  const failing = new Set<string>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const { method } = JSON.parse(body) as { method: string };
      if (failing.has(method)) {
        res.writeHead(503, { "content-type": "text/plain" }).end("upstream unavailable");
        return;
      }
      fetch(upstream, { method: "POST", headers: { "content-type": "application/json" }, body })
        .then(async (answer) => res.writeHead(answer.status, { "content-type": "application/json" }).end(await answer.text()))
        .catch((e: unknown) => res.writeHead(502).end(toError(e).message));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, failing, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A promise and the function that resolves it. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe("processTransaction processor", () => {
  let fixture: StepDepsFixture;
  let pool: SqlPool;
  let db: Database;
  let anvil: AnvilInstance;
  let recorder: DeployedRecorder;
  let rpc: JsonRpcProvider;
  let flakyAnvil: AnvilInstance;
  let flakyRpc: JsonRpcProvider;
  let proxy: Awaited<ReturnType<typeof startFlakyProxy>>;
  let transactions: TransactionRepository;
  let deps: StepDeps;
  const kek = testKek();
  const CHAIN = 31_241n;
  const CHAIN_DOWN = 31_242n; // its RPC URL is a closed port
  const CHAIN_FLAKY = 31_243n; // another anvil, behind a proxy that fails chosen methods

  const addChainAt = (chainId: bigint, rpcUrl: string) => addChain(db, { chainId, rpcUrl }, { stuckAfterSeconds: 60 });

  /** A project with one wallet (funded on anvil unless `fund: false`) and a PENDING transaction of it. */
  async function pendingTransaction(chainId: bigint, options: { wallets?: number; fund?: boolean; sealedWith?: typeof kek } = {}) {
    const project = await createProjectFixture(db, options.sealedWith ?? kek, { wallets: options.wallets ?? 1 });
    const address = project.wallets[0]?.address;
    if (address && options.fund !== false) {
      for (const node of [rpc, flakyRpc]) await node.send("anvil_setBalance", [address, toBeHex(parseEther("10"))]);
    }
    const { calldata } = encodeCall(ORDER, { order: { id: 7, owner: recorder.address, flags: [1] } });
    const created = await transactions.create({
      projectId: project.projectId,
      id: randomUUID(),
      chainId,
      contractAddress: recorder.address,
      functionSignature: ORDER.format("full"),
      args: { order: { id: "7", owner: recorder.address, flags: [1] } },
      calldata: Buffer.from(calldata.slice(2), "hex"),
    });
    if (!created.created) throw new Error("transaction not created");
    return { projectId: project.projectId, transactionId: created.id, address, payload: { v: 1 as const, projectId: project.projectId, transactionId: created.id } };
  }

  const walletNonce = async (chainId: bigint, address: string) =>
    (await pool.query<{ next: string }>(`SELECT next::text FROM wallet_nonce WHERE chain_id = $1 AND address = $2`, [chainId.toString(), address])).rows[0]?.next ?? null;

  beforeAll(async () => {
    fixture = await openStepDeps({ rpcTimeoutMs: 5_000, kek });
    ({ pool, db, deps } = fixture);
    transactions = deps.transactions;
    [anvil, flakyAnvil] = await Promise.all([startAnvil({ chainId: Number(CHAIN) }), startAnvil({ chainId: Number(CHAIN_FLAKY) })]);
    // Same deployer and nonce: the Recorder has the same address on both nodes.
    recorder = await deployRecorder(anvil.rpcUrl);
    (await deployRecorder(flakyAnvil.rpcUrl)).provider.destroy();
    rpc = new JsonRpcProvider(anvil.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
    flakyRpc = new JsonRpcProvider(flakyAnvil.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
    proxy = await startFlakyProxy(flakyAnvil.rpcUrl);
    await addChainAt(CHAIN, anvil.rpcUrl);
    await addChainAt(CHAIN_DOWN, `http://127.0.0.1:${await freePort()}`);
    await addChainAt(CHAIN_FLAKY, proxy.url);
  });
  afterAll(async () => {
    rpc?.destroy();
    flakyRpc?.destroy();
    recorder?.provider.destroy();
    await proxy?.close();
    await Promise.all([anvil?.stop(), flakyAnvil?.stop()]);
    await fixture?.close();
  });

  it("success: signs and broadcasts a PENDING transaction (SUBMITTED, run again later), then confirms it on a later run", async () => {
    const tx = await pendingTransaction(CHAIN);
    const process = createProcessTransactionProcessor(deps);

    const first = await process(tx.payload, context);
    expect(first).toBeInstanceOf(RunAgain);
    expect((first as RunAgain).delayMs).toBe(200);
    const submitted = await transactions.findById(tx.projectId, tx.transactionId);
    expect(submitted).toMatchObject({ status: "SUBMITTED", fromAddress: tx.address, nonce: 0n });
    const attempts = await transactions.attempts(tx.projectId, tx.transactionId);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]!.broadcastAt).not.toBeNull();
    expect(submitted!.hash).toBe(attempts[0]!.hash);
    expect(await walletNonce(CHAIN, tx.address!)).toBe("1");

    // anvil mines at once; a later run finds the receipt. The chain view may still hold the head it
    // read for the broadcast (for up to half a block), so the run may first say when to look
    // again: the test waits as the queue would, a bounded number of times.
    let next = await process(tx.payload, context);
    for (let run = 0; next instanceof RunAgain && run < 20; run++) {
      await new Promise((r) => setTimeout(r, (next as RunAgain).delayMs));
      next = await process(tx.payload, context);
    }
    expect(next).toEqual({ status: "CONFIRMED" });
    expect((await rpc.getTransactionReceipt(attempts[0]!.hash))?.status).toBe(1);
    expect((await transactions.history(tx.projectId, tx.transactionId)).map((c) => c.status)).toEqual(["PENDING", "SUBMITTED", "CONFIRMED"]);
    // A final transaction's job only reports it.
    expect(await process(tx.payload, context)).toEqual({ status: "CONFIRMED" });
  });

  it("retryable failure: the chain's RPC does not answer, so the run throws a retryable error and the transaction stays PENDING without a nonce", async () => {
    const tx = await pendingTransaction(CHAIN_DOWN, { fund: false });
    const error = await createProcessTransactionProcessor(deps)(tx.payload, context).then(
      () => null,
      (e: unknown) => toError(e),
    );
    expect(error).not.toBeNull();
    // createTypedWorker retries whatever is not an AppError marked `retryable: false`.
    expect(isAppError(error) && !error.retryable).toBe(false);
    // The first question to the chain is whether the contract has code (the no-code guard).
    expect(error!.message).toMatch(/simulation failed|reading the code at \S+ failed/);
    const after = await transactions.findById(tx.projectId, tx.transactionId);
    expect(after).toMatchObject({ status: "PENDING", fromAddress: null, nonce: null, error: null });
    expect(await transactions.attempts(tx.projectId, tx.transactionId)).toEqual([]);
    expect(await walletNonce(CHAIN_DOWN, tx.address!)).toBeNull();
    expect((await transactions.history(tx.projectId, tx.transactionId)).map((c) => c.status)).toEqual(["PENDING"]);
  });

  it("retryable failure after the nonce is bound: the retry reuses that nonce instead of taking another", async () => {
    const tx = await pendingTransaction(CHAIN_FLAKY);
    const process = createProcessTransactionProcessor(deps);
    proxy.failing.add("eth_sendRawTransaction"); // the broadcast: after the nonce is bound and the attempt stored
    try {
      const error = await process(tx.payload, context).then(() => null, (e: unknown) => toError(e));
      expect(error).not.toBeNull();
      expect(isAppError(error) && !error.retryable).toBe(false);
    } finally {
      proxy.failing.clear();
    }
    expect(await transactions.findById(tx.projectId, tx.transactionId)).toMatchObject({ status: "PENDING", fromAddress: tx.address, nonce: 0n });
    expect(await walletNonce(CHAIN_FLAKY, tx.address!)).toBe("1");
    const stored = await transactions.attempts(tx.projectId, tx.transactionId);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.broadcastAt).toBeNull();

    // The retry (BullMQ's) sends the stored bytes: the same nonce, no new signature, the counter unmoved.
    expect(await process(tx.payload, context)).toBeInstanceOf(RunAgain);
    expect(await transactions.findById(tx.projectId, tx.transactionId)).toMatchObject({ status: "SUBMITTED", nonce: 0n, hash: stored[0]!.hash });
    expect(await walletNonce(CHAIN_FLAKY, tx.address!)).toBe("1");
    const attempts = await transactions.attempts(tx.projectId, tx.transactionId);
    expect(attempts.map((a) => a.hash)).toEqual([stored[0]!.hash]);
    expect((await flakyRpc.getTransaction(attempts[0]!.hash))?.nonce).toBe(0);
  });

  it("permanent failure: a project without a wallet ends FAILED with the reason, and the result says FAILED", async () => {
    const tx = await pendingTransaction(CHAIN, { wallets: 0 });
    expect(await createProcessTransactionProcessor(deps)(tx.payload, context)).toEqual({ status: "FAILED" });
    const after = await transactions.findById(tx.projectId, tx.transactionId);
    expect(after).toMatchObject({ status: "FAILED", nonce: null });
    expect(after!.error).toMatch(/no wallet/);
    const history = await transactions.history(tx.projectId, tx.transactionId);
    expect(history.map((c) => c.status)).toEqual(["PENDING", "FAILED"]);
    expect(history[1]!.reason).toBe(after!.error);
  });

  it("a broadcast transaction hit by a fault that cannot heal is retried, not FAILED: one of its attempts may be mined", async () => {
    const tx = await pendingTransaction(CHAIN);
    // SUBMITTED with its nonce bound, but its attempts gone (a row mended by hand, a bug): follow cannot go on.
    const binding = await transactions.allocateNonce({ projectId: tx.projectId, transactionId: tx.transactionId, address: tx.address!, chainPendingNonce: 0n });
    expect(binding).not.toBeNull();
    expect(await transactions.move(tx.projectId, tx.transactionId, { from: "PENDING", to: "SUBMITTED", set: { hash: `0x${"11".repeat(32)}` } })).toBeTruthy();
    const error = await createProcessTransactionProcessor(deps)(tx.payload, context).catch((e: unknown) => e);
    expect(isAppError(error) && error.retryable).toBe(true);
    expect((await transactions.findById(tx.projectId, tx.transactionId))!.status).toBe("SUBMITTED");
  });

  it("a second run of the job that sees the first run's transaction mined as a revert does not make it INVALID", async () => {
    // Another node, behind a proxy that holds the first simulation (run B's) until released, and
    // the answer to the broadcast (run A's, mined at once) until released.
    const held = await startAnvil({ chainId: 31_244 });
    const heldRecorder = await deployRecorder(held.rpcUrl);
    const gates = { simulation: deferred(), simulationSeen: deferred(), answer: deferred(), broadcastSeen: deferred() };
    let simulations = 0;
    const proxy = await startRpcInterceptor(held.rpcUrl, async (call) => {
      if (call.method === "eth_estimateGas" && simulations++ === 0) {
        gates.simulationSeen.resolve();
        await gates.simulation.promise;
        // Answered for the node's latest block, whichever block it was asked at (a node behind a
        // load balancer answers from its own head): the one in which run A's call was mined.
        const latest = { ...call, params: [call.params[0], "latest"] };
        return (await (await fetch(held.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(latest) })).json()) as RpcAnswer;
      }
      if (call.method !== "eth_sendRawTransaction") return undefined;
      const answer = (await (await fetch(held.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(call) })).json()) as RpcAnswer;
      gates.broadcastSeen.resolve();
      await gates.answer.promise;
      return answer;
    });
    const chainId = 31_244n;
    try {
      await addChainAt(chainId, proxy.url);
      const project = await createProjectFixture(db, kek, { wallets: 1 });
      const address = project.wallets[0]!.address;
      await heldRecorder.provider.send("anvil_setBalance", [address, toBeHex(parseEther("10"))]);
      const call = parseFunctionSignature("revertsWhenMined(uint256 x)");
      const { calldata } = encodeCall(call, { x: 1 });
      const id = randomUUID();
      await transactions.create({ projectId: project.projectId, id, chainId, contractAddress: heldRecorder.address, functionSignature: call.format("full"), args: ["1"], calldata: Buffer.from(calldata.slice(2), "hex") });
      const payload = { v: 1 as const, projectId: project.projectId, transactionId: id };
      const process = createProcessTransactionProcessor(deps);

      const runB = process(payload, context); // reads no attempt, then simulates: held
      await gates.simulationSeen.promise;
      const runA = process(payload, context); // simulates, binds the nonce, signs, stores, broadcasts: mined, answer held
      await gates.broadcastSeen.promise;
      // The mined call changed what B's simulation sees: it reverts now.
      await heldRecorder.provider.send("anvil_setStorageAt", [heldRecorder.address, "0x0", toBeHex(1, 32)]);
      gates.simulation.resolve();
      await runB;
      gates.answer.resolve();
      await runA;

      let result: unknown;
      for (let i = 0; i < 10 && !(result && typeof result === "object" && "status" in result); i++) result = await process(payload, context);
      expect(result).toEqual({ status: "CONFIRMED" });
      const [attempt] = await transactions.attempts(project.projectId, id);
      expect((await heldRecorder.provider.getTransactionReceipt(attempt!.hash))?.status).toBe(1);
      expect((await transactions.history(project.projectId, id)).map((c) => c.status)).toEqual(["PENDING", "SUBMITTED", "CONFIRMED"]);
    } finally {
      gates.simulation.resolve();
      gates.answer.resolve();
      heldRecorder.provider.destroy();
      await proxy.close();
      await held.stop();
    }
  });

  it("a run handed back to the queue stops before its next write: a revert it simulates does not make INVALID what the run that took over sends", async () => {
    // Run B simulates first (held), is handed back, and its simulation then reverts (a lagging
    // node, say) while run A, which took the job over, is signing: without the stop, B moved the
    // transaction to INVALID and A then stored and broadcast it, mined while recorded INVALID.
    const node = await startAnvil({ chainId: 31_245 });
    const nodeRecorder = await deployRecorder(node.rpcUrl);
    const gates = { simulation: deferred(), simulationSeen: deferred(), signing: deferred(), signingSeen: deferred() };
    let simulations = 0;
    const proxy = await startRpcInterceptor(node.rpcUrl, async (call) => {
      if (call.method !== "eth_estimateGas" || simulations++ > 0) return undefined;
      gates.simulationSeen.resolve();
      await gates.simulation.promise;
      return { error: { code: 3, message: "execution reverted: stale state", data: "0x" } };
    });
    const chainId = 31_245n;
    try {
      await addChainAt(chainId, proxy.url);
      const project = await createProjectFixture(db, kek, { wallets: 1 });
      await nodeRecorder.provider.send("anvil_setBalance", [project.wallets[0]!.address, toBeHex(parseEther("10"))]);
      const { calldata } = encodeCall(ORDER, { order: { id: 8, owner: nodeRecorder.address, flags: [] } });
      const id = randomUUID();
      await transactions.create({ projectId: project.projectId, id, chainId, contractAddress: nodeRecorder.address, functionSignature: ORDER.format("full"), args: {}, calldata: Buffer.from(calldata.slice(2), "hex") });
      const payload = { v: 1 as const, projectId: project.projectId, transactionId: id };
      let handedBack = false;
      const runB = createProcessTransactionProcessor(deps)(payload, { ...context, handedBack: () => handedBack });
      await gates.simulationSeen.promise;
      handedBack = true;

      const signing: StepDeps["signer"] = {
        signTransaction: async (...args) => {
          gates.signingSeen.resolve();
          await gates.signing.promise;
          return deps.signer.signTransaction(...args);
        },
      };
      const process = createProcessTransactionProcessor({ ...deps, signer: signing });
      const runA = process(payload, context);
      await gates.signingSeen.promise;
      gates.simulation.resolve();
      await expect(runB).rejects.toMatchObject({ message: expect.stringMatching(/handed back/) });
      gates.signing.resolve();
      await runA;

      let result: unknown;
      for (let i = 0; i < 10 && !(result && typeof result === "object" && "status" in result); i++) result = await process(payload, context);
      expect(result).toEqual({ status: "CONFIRMED" });
      expect((await transactions.history(project.projectId, id)).map((c) => c.status)).toEqual(["PENDING", "SUBMITTED", "CONFIRMED"]);
    } finally {
      gates.simulation.resolve();
      gates.signing.resolve();
      nodeRecorder.provider.destroy();
      await proxy.close();
      await node.stop();
    }
  });

  it("a key this replica cannot open (wrong key-encryption key) is retried, not FAILED: another replica, or this one fixed, can sign", async () => {
    const tx = await pendingTransaction(CHAIN, { sealedWith: testKek() });
    await expect(createProcessTransactionProcessor(deps)(tx.payload, context)).rejects.toThrow(/failed authentication/);
    const after = await transactions.findById(tx.projectId, tx.transactionId);
    expect(after!.status).toBe("PENDING");
    expect(await transactions.attempts(tx.projectId, tx.transactionId)).toEqual([]);
    expect(await rpc.getTransactionCount(tx.address!, "pending")).toBe(0);
  });
});
