import { randomUUID } from "node:crypto";
import { Interface, JsonRpcProvider, keccak256 } from "ethers";
import { createDatabase, createPool, type Database } from "@relay/db";
import { testDatabasePooler } from "@relay/testing";
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
  type DeployedRecorder,
  type ProcessGroup,
} from "@relay/testing";
import { addChain, fund } from "@relay/testing";
import { startRpcProxy, type RpcProxy, type Trap } from "../support/rpc-proxy";
import { SET_ORDER, sendTransaction, waitUntilAllFinal } from "../support/transactions";

type Pool = ReturnType<typeof createPool>;

const TRANSACTIONS = 6;
const OWNER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
/**
 * A killed worker's jobs stay locked to it until the lock expires and a stalled-job check sees
 * that; BullMQ's 30 s default would make each case take up to a minute and a half.
 */
const WORKER_ENV = { TX_JOB_LOCK_MS: "2000", TX_CONCURRENCY: "8" };

interface Row {
  id: string;
  status: string;
  fromAddress: string;
  nonce: string;
  hash: string;
  attempts: number;
}

/**
 * docs/transactions.md: the signed bytes are stored before the broadcast, and a retry rebroadcasts
 * them instead of signing anew. A tx-worker process is SIGKILLed by a JSON-RPC proxy in front of
 * anvil at its first eth_sendRawTransaction, either before the node got it or after the node
 * took it (the answer lost); a fresh process then finishes everything, and nothing goes on chain
 * twice.
 */
describe("a tx-worker killed around the broadcast", () => {
  const kek = testKek();
  const prefix = testQueuePrefix("crash");
  let anvil: AnvilInstance;
  let recorder: DeployedRecorder;
  let chain: JsonRpcProvider;
  let proxy: RpcProxy;
  let pool: Pool;
  let db: Database;
  let redis: Redis;
  let group: ProcessGroup;
  let gatewayUrl: string;
  let nextOrderId = 1;

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 31_712 });
    recorder = await deployRecorder(anvil.rpcUrl);
    chain = new JsonRpcProvider(anvil.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
    proxy = await startRpcProxy(anvil.rpcUrl);
    pool = createPool({ url: testDatabaseUrl(), poolSize: 5, pooler: testDatabasePooler() });
    db = createDatabase({ pool });
    redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "worker");
    // The workers reach the chain only through the proxy.
    await addChain(db, { ...anvil, rpcUrl: proxy.url });
    group = createProcessGroup({ databaseUrl: testDatabaseUrl(), queuePrefix: prefix, kek });
    gatewayUrl = (await group.startGateway()).url;
  }, 60_000);

  afterAll(async () => {
    await group?.stopAll();
    await proxy?.close();
    if (redis) {
      await deleteRedisKeys(redis, prefix);
      await redis.quit();
    }
    await db?.$disconnect();
    if (pool && !pool.ended) await pool.end();
    chain?.destroy();
    recorder?.provider.destroy();
    await anvil?.stop();
  });

  const rowsOf = async (projectId: string): Promise<Row[]> =>
    (
      await pool.query<Row>(
        `SELECT t.id, t.status, t.from_address AS "fromAddress", t.nonce::text AS nonce, t.hash,
                (SELECT count(*)::int FROM transaction_attempt a WHERE a.project_id = t.project_id AND a.transaction_id = t.id) AS attempts
           FROM transaction t WHERE t.project_id = $1`,
        [projectId],
      )
    ).rows;

  it.each<[string, Trap]>([
    ["right before the broadcast", "before-broadcast"],
    ["right after the broadcast, before it hears the answer", "after-broadcast"],
  ])("finishes every transaction exactly once after a SIGKILL %s", async (_when, trap) => {
    const project = await createProjectFixture(db, kek, { wallets: 2 });
    const wallets = new Set(project.wallets.map((w) => w.address.toLowerCase()));
    await fund(anvil.rpcUrl, project.wallets.map((w) => w.address));
    const victim = await group.startTxWorker(`tx-worker-${trap}-victim`, { env: WORKER_ENV });
    const sprung = proxy.arm(trap, () => victim.kill("SIGKILL"));

    const recorderAbi = new Interface([SET_ORDER]);
    const orders = Array.from({ length: TRANSACTIONS }, () => ({ id: String(nextOrderId++), owner: OWNER, flags: [] as number[] }));
    const answers = await Promise.all(
      orders.map((order) =>
        sendTransaction(gatewayUrl, project.apiKey, {
          projectId: project.projectId,
          chainId: anvil.chainId,
          contractAddress: recorder.address,
          requestId: randomUUID(),
          functionSignature: SET_ORDER,
          args: { order },
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));

    const { rawTransaction } = await sprung;
    const caughtHash = keccak256(rawTransaction);
    expect(await victim.exited).toEqual({ code: null, signal: "SIGKILL" });

    // The moment of the kill: the signed transaction is stored, the request still PENDING, and the
    // node has it only if the kill came after the broadcast.
    const caught = await attemptOwner(pool, caughtHash, await rowsOf(project.projectId));
    expect(caught).toMatchObject({ status: "PENDING", attempts: 1 });
    expect((await chain.getTransaction(caughtHash)) !== null).toBe(trap === "after-broadcast");

    const successor = await group.startTxWorker(`tx-worker-${trap}-successor`, { env: WORKER_ENV });
    await waitUntilAllFinal(pool, project.projectId, TRANSACTIONS, 30_000, [victim, successor]);

    const rows = await rowsOf(project.projectId);
    // All confirmed, each signed once: the caught transaction went on chain with the stored bytes.
    expect(rows.map((r) => [r.status, r.attempts])).toEqual(rows.map(() => ["CONFIRMED", 1]));
    expect(rows.find((r) => r.id === caught!.id)?.hash).toBe(caughtHash);
    expect((await chain.getTransactionReceipt(caughtHash))?.status).toBe(1);

    // Each calldata mined exactly once; each wallet's mined nonces are 0..k-1, one transaction
    // each, and they are the relay's own (the hashes it recorded), nothing else.
    const mined = await minedTransactions(anvil.rpcUrl);
    const counts = countByCall(mined);
    expect(orders.map((order) => counts.get(callKey(recorder.address, recorderAbi.encodeFunctionData("setOrder", [order]))) ?? 0)).toEqual(
      orders.map(() => 1),
    );
    const fromProject = mined.filter((tx) => wallets.has(tx.from));
    expect(fromProject.map((tx) => tx.hash).sort()).toEqual(rows.map((r) => r.hash).sort());
    for (const wallet of wallets) {
      const nonces = fromProject.filter((tx) => tx.from === wallet).map((tx) => tx.nonce).sort((a, b) => a - b);
      expect({ wallet, nonces }).toEqual({ wallet, nonces: nonces.map((_, i) => i) });
    }

    expect(await successor.stop("SIGTERM")).toEqual({ code: 0, signal: null });
  }, 60_000);
});

/** The transaction a signed attempt belongs to (its `hash` column is set only once SUBMITTED). */
async function attemptOwner(pool: Pool, hash: string, rows: Row[]): Promise<Row | undefined> {
  const { rows: owners } = await pool.query<{ transactionId: string }>(
    `SELECT transaction_id AS "transactionId" FROM transaction_attempt WHERE hash = $1`,
    [hash],
  );
  return rows.find((r) => r.id === owners[0]?.transactionId);
}
