import { randomUUID } from "node:crypto";
import type { JobType, Worker } from "bullmq";
import { createLogger } from "@relay/core";
import { deleteRedisKeys, testQueuePrefix } from "@relay/testing";
import { createRedis, type Redis } from "./connection";
import { createProducer, type Producer } from "./producer";
import { watchStalls, type Stall } from "./stall-watch";
import { createTypedWorker } from "./worker";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const logger = createLogger({ name: "stall-watch-test", level: "silent" });
const STALLED_AFTER_MS = 600;
const EVERY_MS = 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The relay's workers (createTypedWorker) on a real Redis. A worker whose fetch loop is parked
 * looks, from outside, like a worker that takes no job while jobs are ready and it has free slots;
 * a worker whose loop was never started shows exactly that, so it stands in for the parked loop
 * here (the fault scenario faults/redis-failover.faults.test.ts produces the real one).
 */
describe("watchStalls", () => {
  let prefix: string;
  let redis: Redis;
  let producer: Producer;
  const open: { close(): Promise<void> }[] = [];

  beforeAll(() => {
    redis = createRedis(REDIS_URL, "worker");
  });
  beforeEach(() => {
    prefix = testQueuePrefix("stall-watch");
    producer = createProducer({ connection: redis, prefix });
  });
  afterEach(async () => {
    for (const item of open.splice(0).reverse()) await item.close();
    await producer.close();
    await deleteRedisKeys(redis, prefix);
  });
  afterAll(async () => {
    await redis.quit();
  });

  /** A delivery worker with `concurrency` slots; `work` runs each job. */
  const deliveryWorker = async (concurrency: number, work: () => Promise<unknown> = async () => ({}), autorun = true) => {
    const worker = createTypedWorker("deliverWebhook", work, { connection: redis, prefix, concurrency, logger, autorun });
    await worker.waitUntilReady();
    open.push(worker);
    return worker;
  };
  /** A worker that fetches nothing: made without running its loop, as a parked loop looks from outside. */
  const parkedWorker = () => deliveryWorker(4, async () => ({}), false);
  const enqueue = (n: number) => Promise.all(Array.from({ length: n }, () => producer.enqueue("deliverWebhook", { v: 1, deliveryId: randomUUID() })));
  const counts = (...states: JobType[]) => producer.queue("deliverWebhook").getJobCounts(...states);
  const watch = (workers: Worker[], stuckAfterMs?: number, connect = () => createRedis(REDIS_URL, "producer")) => {
    const stalls: Stall[] = [];
    const watcher = watchStalls({
      workers,
      connect,
      onStall: (s) => stalls.push(s),
      stalledAfterMs: STALLED_AFTER_MS,
      ...(stuckAfterMs === undefined ? {} : { stuckAfterMs }),
      everyMs: EVERY_MS,
    });
    open.push({ close: () => watcher.stop() });
    return stalls;
  };

  it("reports a worker that takes no job while jobs wait and it has free slots", async () => {
    const worker = await parkedWorker();
    const stalls = watch([worker]);
    await enqueue(3);
    await sleep(STALLED_AFTER_MS + 6 * EVERY_MS);
    expect(stalls).toEqual([expect.objectContaining({ queue: "webhook-delivery", readyJobs: 3 })]);
    expect(stalls[0]!.idleMs).toBeGreaterThanOrEqual(STALLED_AFTER_MS);
  });

  it("makes its connection again after a look it did not answer, and then sees the stall", async () => {
    const worker = await parkedWorker();
    // The first connection goes nowhere (refused), as a wedged one answers nothing.
    const made: string[] = [];
    const stalls = watch([worker], undefined, () => {
      const url = made.length === 0 ? "redis://127.0.0.1:1" : REDIS_URL;
      made.push(url);
      return createRedis(url, "producer");
    });
    await enqueue(2);
    await sleep(STALLED_AFTER_MS + 10 * EVERY_MS);
    expect(made.slice(0, 2)).toEqual(["redis://127.0.0.1:1", REDIS_URL]);
    expect(made).toHaveLength(2);
    expect(stalls).toEqual([expect.objectContaining({ queue: "webhook-delivery", readyJobs: 2 })]);
  });

  it("reports nothing while the worker takes the jobs", async () => {
    const worker = await deliveryWorker(2, () => sleep(20));
    const stalls = watch([worker]);
    for (let round = 0; round < 10; round++) {
      await enqueue(5);
      await sleep(EVERY_MS);
    }
    await sleep(STALLED_AFTER_MS);
    expect(await counts("completed")).toEqual({ completed: 50 });
    expect(stalls).toEqual([]);
  });

  it("reports a worker whose every slot holds a job that neither ends nor lets another start", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const worker = await deliveryWorker(1, () => held);
    const stalls = watch([worker], 2 * STALLED_AFTER_MS);
    await enqueue(3);
    await sleep(2 * STALLED_AFTER_MS + 6 * EVERY_MS);
    release();
    expect(stalls).toEqual([expect.objectContaining({ queue: "webhook-delivery", readyJobs: 2 })]);
  });

  it("reports nothing while every slot is busy for less than stuckAfterMs, however long jobs wait", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const worker = await deliveryWorker(1, () => held);
    const stalls = watch([worker]);
    await enqueue(3);
    await sleep(STALLED_AFTER_MS + 6 * EVERY_MS);
    const whileHeld = await counts("active", "wait");
    release();
    expect(whileHeld).toEqual({ active: 1, wait: 2 });
    expect(stalls).toEqual([]);
  });

  it("leaves a closing worker alone", async () => {
    const worker = await parkedWorker();
    const stalls = watch([worker]);
    await enqueue(1);
    void worker.close();
    await sleep(STALLED_AFTER_MS + 6 * EVERY_MS);
    expect(stalls).toEqual([]);
  });
});
