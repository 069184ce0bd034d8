import { randomUUID } from "node:crypto";
import { createLogger } from "@relay/core";
import { deleteRedisKeys, testQueuePrefix } from "@relay/testing";
import { jobCatalog, jobIdOf } from "./catalog";
import { createRedis, type Redis } from "./connection";
import { createProducer, type Producer } from "./producer";
import { RETRY_DELAY_CAP_MS } from "./retry-backoff";
import { until } from "./until.test-support";
import { createTypedWorker } from "./worker";
import type { Worker } from "bullmq";

const logger = createLogger({ name: "long-lived-job-test", level: "silent" });


/**
 * A transaction's job lives as long as its transaction, hours for some; what BullMQ counts over a
 * job's life (failed runs, stalls) must not turn one more transient fault or one more crash into
 * a long wait or a failed job.
 */
describe("a long-lived job (processTransaction)", () => {
  let redis: Redis;
  let producer: Producer;
  let prefix: string;
  const workers: Worker[] = [];
  const payload = () => ({ v: 1 as const, projectId: randomUUID(), transactionId: randomUUID() });
  /** The job's hash in Redis: where BullMQ keeps its counters. */
  const jobKey = (p: ReturnType<typeof payload>) => `${prefix}:${jobCatalog.processTransaction.queue}:${jobIdOf("processTransaction", p)}`;

  beforeEach(() => {
    prefix = testQueuePrefix("long-lived-job");
    redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "worker");
    producer = createProducer({ connection: redis, prefix });
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.close(true)));
    await producer.close();
    await deleteRedisKeys(redis, prefix);
    await redis.quit();
  });

  it("retries a transient fault after 20 earlier ones within the 30 s cap, instead of failing it or waiting 2^19 s", async () => {
    const p = payload();
    // Waiting, no worker yet: twenty failed runs over the job's life so far (BullMQ's attemptsMade).
    const job = await producer.enqueue("processTransaction", p);
    await redis.hset(jobKey(p), "atm", "20");
    let runs = 0;
    workers.push(
      createTypedWorker(
        "processTransaction",
        async () => {
          runs += 1;
          throw new Error("RPC timed out");
        },
        { connection: redis, prefix, concurrency: 1, logger },
      ),
    );
    await until(async () => (await producer.queue("processTransaction").getJobState(job.id!)) === "delayed" && runs === 1, "the failed run put back as delayed");
    const dueAt = Number(await redis.zscore(`${prefix}:${jobCatalog.processTransaction.queue}:delayed`, job.id!)) / 0x1000;
    expect(dueAt - Date.now()).toBeLessThanOrEqual(RETRY_DELAY_CAP_MS);
    expect(dueAt - Date.now()).toBeGreaterThan(RETRY_DELAY_CAP_MS * 0.8 - 2000);
  });

  it("runs a job again after a third stall in its life (its replica died), where BullMQ's default fails it unrun", async () => {
    const p = payload();
    const job = await producer.enqueue("processTransaction", p);
    // Two earlier stalls in the job's life (BullMQ's stalledCounter).
    await redis.hset(jobKey(p), "stc", "2");
    const lock = { connection: redis, prefix, concurrency: 1, logger, lockDurationMs: 1000 };
    let dying = 0;
    const hang = () => {
      dying += 1;
      return new Promise(() => undefined);
    };
    const doomed = createTypedWorker("processTransaction", hang, lock);
    workers.push(doomed);
    await until(() => dying === 1, "the first replica took the job");
    // The replica dies: its lock is no longer renewed and lapses.
    await doomed.close(true);
    let ran = 0;
    const finish = async () => {
      ran += 1;
      return "done";
    };
    workers.push(createTypedWorker("processTransaction", finish, lock));
    await until(async () => (await producer.queue("processTransaction").getJobState(job.id!)) === "completed", "the job completed on the second replica");
    expect(ran).toBe(1);
  });
});
