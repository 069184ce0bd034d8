import { randomUUID } from "node:crypto";
import { AppError, createLogger } from "@relay/core";
import { createChainRepository, createDatabase, createPool, createTransactionRepository, type Database, type TransactionRepository } from "@relay/db";
import type { TransactionStatus } from "@relay/lifecycle";
import { createProducer, createRedis, createTypedWorker, jobCatalog, jobIdOf, type Job, type JobPayload, type Producer, type Redis } from "@relay/queue";
import { createProjectFixture, deleteRedisKeys, testDatabaseUrl, testKek, testQueuePrefix } from "@relay/testing";
import { createReconcileProcessor } from "./reconcile.processor";

const logger = createLogger({ name: "reconcile-test", level: "silent" });
const context = { job: {} as Job, logger };
const CHAIN = 31_251n; // a record only: nothing here talks to a node
const IDLE_AFTER_MS = 60_000;

// The worker below may take a while to start on a machine running the whole suite at once.
jest.setTimeout(90_000);

describe("reconcileTransactions processor", () => {
  let pool: ReturnType<typeof createPool>;
  let db: Database;
  let redis: Redis;
  let producer: Producer;
  let transactions: TransactionRepository;
  let projectId: string;
  const prefix = testQueuePrefix("reconcile");

  const reconcile = () =>
    createReconcileProcessor({ transactions, producer, idleAfterMs: IDLE_AFTER_MS, batch: 10_000, now: Date.now })({ v: 1 }, context) as Promise<{ checked: number; revived: number }>;

  /** A transaction in `status`, created through the repository (no job enqueued), optionally idle for a day. */
  async function transactionIn(status: TransactionStatus, { idle = true } = {}): Promise<JobPayload<"processTransaction">> {
    const id = randomUUID();
    const created = await transactions.create({
      projectId,
      id,
      chainId: CHAIN,
      contractAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      functionSignature: "function alwaysReverts(uint256 x)",
      args: { x: "1" },
      calldata: Uint8Array.from([1, 2, 3, 4]),
    });
    expect(created.created).toBe(true);
    if (status !== "PENDING") expect(await transactions.move(projectId, id, { from: "PENDING", to: status })).toBe(true);
    if (idle) await pool.query(`UPDATE transaction SET updated_at = now() - interval '1 day' WHERE project_id = $1 AND id = $2`, [projectId, id]);
    return { v: 1, projectId, transactionId: id };
  }

  const jobOf = (payload: JobPayload<"processTransaction">) => producer.queue("processTransaction").getJob(jobIdOf("processTransaction", payload));

  beforeAll(async () => {
    pool = createPool({ url: testDatabaseUrl() });
    db = createDatabase({ pool });
    redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "worker");
    producer = createProducer({ connection: redis, prefix });
    transactions = createTransactionRepository({ sql: pool, db });
    await createChainRepository(db).upsert({ chainId: CHAIN, name: "reconcile test", rpcUrls: ["http://127.0.0.1:1"], confirmations: 1, lowBalanceThresholdWei: 0n });
    projectId = (await createProjectFixture(db, testKek())).projectId;
  });
  afterAll(async () => {
    await producer?.close();
    await deleteRedisKeys(redis, prefix);
    await redis?.quit();
    await db?.$disconnect();
    if (pool && !pool.ended) await pool.end();
  });

  it.each(["PENDING", "SUBMITTED", "PAUSED"] as const)("gives an idle %s transaction without a job a new job", async (status) => {
    const payload = await transactionIn(status);
    expect(await jobOf(payload)).toBeUndefined();

    const result = await reconcile();
    expect(result.revived).toBeGreaterThanOrEqual(1);
    const job = await jobOf(payload);
    expect(job?.data).toEqual(payload);
    expect(await job?.getState()).toBe("waiting");
    expect(job?.opts.attempts).toBe(jobCatalog.processTransaction.options.attempts);
  });

  it("leaves alone a transaction touched within the idle time, and a final one", async () => {
    const fresh = await transactionIn("PENDING", { idle: false });
    const final = await transactionIn("FAILED");
    await reconcile();
    expect(await jobOf(fresh)).toBeUndefined();
    expect(await jobOf(final)).toBeUndefined();
  });

  it("does not duplicate or reset a live job: a delayed job stays the same job with the same delay", async () => {
    const payload = await transactionIn("SUBMITTED");
    const jobId = jobIdOf("processTransaction", payload);
    const added = await producer.queue("processTransaction").add("processTransaction", payload, { ...jobCatalog.processTransaction.options, jobId, delay: 600_000 });

    await reconcile();
    await reconcile();
    const job = await jobOf(payload);
    expect(await job?.getState()).toBe("delayed");
    expect([job?.timestamp, job?.delay]).toEqual([added.timestamp, 600_000]);
    const sameTransaction = (await producer.queue("processTransaction").getJobs(["waiting", "delayed", "active", "prioritized"])).filter(
      (j) => (j.data as JobPayload<"processTransaction">).transactionId === payload.transactionId,
    );
    expect(sameTransaction).toHaveLength(1);
  });

  it("revives a job that completed while its transaction is unfinished, and retries one that failed for good", async () => {
    const completes = await transactionIn("PENDING");
    const fails = await transactionIn("PENDING");
    const ended = new Set<string>();
    const worker = createTypedWorker(
      "processTransaction",
      async ({ transactionId }) => {
        if (transactionId === fails.transactionId) throw new AppError("INTERNAL", "gave up", { retryable: false });
        return { status: "whatever" };
      },
      { connection: redis, prefix, concurrency: 2, logger },
    );
    worker.on("completed", (job) => ended.add(job.id!));
    worker.on("failed", (job) => ended.add(job!.id!));
    try {
      await producer.enqueue("processTransaction", completes);
      await producer.enqueue("processTransaction", fails);
      // Until both of these jobs have ended: the worker also runs jobs earlier tests of this file left
      // in the queue, so "two jobs ended" is not enough.
      const ours = [completes, fails].map((p) => jobIdOf("processTransaction", p));
      const deadline = Date.now() + 45_000;
      while (!ours.every((id) => ended.has(id)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    } finally {
      await worker.close();
    }
    expect(await (await jobOf(completes))?.getState()).toBe("completed");
    expect(await (await jobOf(fails))?.getState()).toBe("failed");

    const failed = await jobOf(fails);
    expect(failed?.attemptsMade).toBeGreaterThan(0);

    await reconcile();
    expect(await (await jobOf(completes))?.getState()).toBe("waiting");
    const retried = await jobOf(fails);
    expect(await retried?.getState()).toBe("waiting");
    // With the catalog's retries all again: not one more try before it fails for good again.
    expect(retried?.attemptsMade).toBe(0);
  });

  it("reaches a transaction that lost its job behind more idle ones with live jobs than a run checks", async () => {
    // Three idle for two days, each with a live (delayed) job, older than the lost one idle for a day.
    const live = [];
    for (let i = 0; i < 3; i++) {
      const payload = await transactionIn("PAUSED");
      await pool.query(`UPDATE transaction SET updated_at = now() - interval '2 days' - $3 * interval '1 second' WHERE project_id = $1 AND id = $2`, [
        projectId,
        payload.transactionId,
        i,
      ]);
      await producer.queue("processTransaction").add("processTransaction", payload, {
        ...jobCatalog.processTransaction.options,
        jobId: jobIdOf("processTransaction", payload),
        delay: 600_000,
      });
      live.push(payload);
    }
    const lost = await transactionIn("PENDING");

    // One processor, as in a worker: each run goes on where the one before stopped.
    const run = createReconcileProcessor({ transactions, producer, idleAfterMs: IDLE_AFTER_MS, batch: 2, now: Date.now });
    for (let runs = 0; runs < 20 && (await jobOf(lost)) === undefined; runs++) await run({ v: 1 }, context);

    expect(await (await jobOf(lost))?.getState()).toBe("waiting");
    for (const payload of live) expect(await (await jobOf(payload))?.getState()).toBe("delayed");
  });
});
