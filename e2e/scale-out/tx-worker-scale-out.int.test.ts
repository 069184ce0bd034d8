import { randomUUID } from "node:crypto";
import { Interface } from "ethers";
import { createDatabase, createPool, type Database } from "@relay/db";
import { createRedis, type Redis } from "@relay/queue";
import {
  callKey,
  countByCall,
  createProcessGroup,
  createProjectFixture,
  deleteRedisKeys,
  deployRecorder,
  minedTransactions,
  startAnvil,
  testDatabaseUrl,
  testKek,
  testQueuePrefix,
  type AnvilInstance,
  type AppProcess,
  type DeployedRecorder,
  type ProcessGroup,
  type ProjectFixture,
} from "@relay/testing";
import { addChain, fund, readTransaction, type TransactionView } from "@relay/testing";
import { SET_ORDER, sendTransaction, waitUntilAllFinal } from "../support/transactions";

type Pool = ReturnType<typeof createPool>;

const TRANSACTIONS = 200;
const BATCH = 40;
const WALLETS = 3;
const OWNER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

type View = TransactionView & { transactionId: string; calldata: string };

/**
 * docs/transactions.md, "Proof the issue asks for": two tx-worker processes × 200 transactions ×
 * 3 wallets, through the gateway process: all CONFIRMED, each wallet's nonces 0..k-1 once, each
 * calldata mined exactly once, and both replicas took part.
 */
describe("two tx-worker processes on one queue", () => {
  const kek = testKek();
  const prefix = testQueuePrefix("scale-out");
  let anvil: AnvilInstance;
  let recorder: DeployedRecorder;
  let pool: Pool;
  let db: Database;
  let redis: Redis;
  let project: ProjectFixture;
  let group: ProcessGroup;
  let gatewayUrl: string;
  let workers: AppProcess[];

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 31_711 });
    recorder = await deployRecorder(anvil.rpcUrl);
    pool = createPool({ url: testDatabaseUrl(), poolSize: 5 });
    db = createDatabase({ pool });
    redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "worker");
    await addChain(db, anvil);
    project = await createProjectFixture(db, kek, { wallets: WALLETS });
    await fund(anvil.rpcUrl, project.wallets.map((w) => w.address));

    group = createProcessGroup({ databaseUrl: testDatabaseUrl(), queuePrefix: prefix, kek });
    // Bounded concurrency keeps the three processes' connection pools well inside Postgres' limit.
    const workerEnv = { TX_CONCURRENCY: "8" };
    const [gateway, a, b] = await Promise.all([
      group.startGateway(),
      group.startTxWorker("tx-worker-a", { env: workerEnv }),
      group.startTxWorker("tx-worker-b", { env: workerEnv }),
    ]);
    gatewayUrl = gateway.url;
    workers = [a, b];
  }, 60_000);

  afterAll(async () => {
    await group?.stopAll();
    if (redis) {
      await deleteRedisKeys(redis, prefix);
      await redis.quit();
    }
    await db?.$disconnect();
    if (pool && !pool.ended) await pool.end();
    recorder?.provider.destroy();
    await anvil?.stop();
  });

  it("confirms 200 transactions once each, with gapless nonces per wallet, shared by both workers", async () => {
    const calls = Array.from({ length: TRANSACTIONS }, (_, i) => ({
      requestId: randomUUID(),
      order: { id: String(i + 1), owner: OWNER, flags: [] as number[] },
    }));
    const recorderAbi = new Interface([SET_ORDER]);
    const expectedCalldata = new Map<string, string>(calls.map((c) => [c.requestId, recorderAbi.encodeFunctionData("setOrder", [c.order]).toLowerCase()]));

    for (let i = 0; i < calls.length; i += BATCH) {
      const answers = await Promise.all(
        calls.slice(i, i + BATCH).map((c) =>
          sendTransaction(gatewayUrl, project.apiKey, {
            projectId: project.projectId,
            chainId: anvil.chainId,
            contractAddress: recorder.address,
            requestId: c.requestId,
            functionSignature: SET_ORDER,
            args: { order: c.order },
          }),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
      expect(answers.map((a) => a.body.transactionId)).toEqual(calls.slice(i, i + BATCH).map((c) => c.requestId));
    }

    await waitUntilAllFinal(pool, project.projectId, TRANSACTIONS, 60_000, workers);

    const views: View[] = [];
    for (let i = 0; i < calls.length; i += BATCH) {
      views.push(
        ...(await Promise.all(
          calls.slice(i, i + BATCH).map((c) => readTransaction(gatewayUrl, project.apiKey, project.projectId, c.requestId) as Promise<View>),
        )),
      );
    }

    // Every request is CONFIRMED, carrying the calldata the client asked for.
    expect(views.filter((v) => v.status !== "CONFIRMED").map((v) => `${v.transactionId}: ${v.status} ${v.error}`)).toEqual([]);
    for (const v of views) expect(v.calldata.toLowerCase()).toBe(expectedCalldata.get(v.transactionId));

    // Each wallet took part, and its nonces are exactly 0..k-1, each bound to one transaction.
    const nonces = new Map<string, number[]>(project.wallets.map((w) => [w.address.toLowerCase(), []]));
    for (const v of views) nonces.get(v.from!.toLowerCase())!.push(Number(v.nonce));
    for (const [wallet, used] of nonces) {
      expect({ wallet, k: used.length > 0 }).toEqual({ wallet, k: true });
      expect({ wallet, nonces: [...used].sort((x, y) => x - y) }).toEqual({ wallet, nonces: used.map((_, n) => n) });
    }

    // On chain: each calldata exactly once, and nothing else from the project's wallets.
    const mined = await minedTransactions(anvil.rpcUrl);
    const counts = countByCall(mined);
    const notOnce = calls
      .map((c) => ({ requestId: c.requestId, mined: counts.get(callKey(recorder.address, expectedCalldata.get(c.requestId)!)) ?? 0 }))
      .filter((c) => c.mined !== 1);
    expect(notOnce).toEqual([]);
    const fromWallets = mined.filter((tx) => nonces.has(tx.from));
    expect(fromWallets).toHaveLength(TRANSACTIONS);
    const minedByHash = new Map(fromWallets.map((tx) => [tx.hash, tx]));
    for (const v of views) {
      expect(minedByHash.get(v.hash!)).toMatchObject({ from: v.from!.toLowerCase(), nonce: Number(v.nonce) });
    }

    // Both replicas signed, and every transaction was signed once, by one of them. The workers'
    // log lines reach this process through pipes, behind their buffers: wait for them to drain.
    const signedLines = () => workers.map((w) => w.logs.filter((l) => l.msg === "transaction signed").map((l) => String(l.transactionId)));
    for (const deadline = Date.now() + 15_000; signedLines().flat().length < TRANSACTIONS && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 100));
    const signedBy = signedLines();
    expect(signedBy.map((ids) => ids.length > 0)).toEqual([true, true]);
    const allSigned = signedBy.flat();
    expect(allSigned).toHaveLength(TRANSACTIONS);
    expect(new Set(allSigned)).toEqual(new Set(calls.map((c) => c.requestId)));
  }, 90_000);
});
