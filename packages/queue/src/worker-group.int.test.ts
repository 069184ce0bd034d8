import { randomUUID } from "node:crypto";
import { createLogger } from "@relay/core";
import { deleteRedisKeys, testQueuePrefix } from "@relay/testing";
import { createRedis, type Redis } from "./connection";
import { createProducer, type Producer } from "./producer";
import { until } from "./until.test-support";
import { createTypedWorker, type Processor } from "./worker";
import { workerGroup, type WorkerGroup } from "./worker-group";

const logger = createLogger({ name: "worker-group-test", level: "silent" });
/** Far longer than any test here: a job that comes back did not wait for its lock to expire. */
const LOCK_MS = 120_000;

/** A processor that records each start and finishes when the test says so. */
function gatedProcessor() {
  const started: { deliveryId: string; attemptsMade: number }[] = [];
  const gates = new Map<string, () => void>();
  /** Each run's `handedBack`, by delivery id. */
  const handedBack = new Map<string, () => boolean>();
  const processor: Processor<"deliverWebhook"> = (payload, { job, handedBack: isHandedBack }) => {
    started.push({ deliveryId: payload.deliveryId, attemptsMade: job.attemptsMade });
    if (isHandedBack) handedBack.set(payload.deliveryId, isHandedBack);
    return new Promise((resolve) => gates.set(payload.deliveryId, () => resolve({ done: payload.deliveryId })));
  };
  return { processor, started, handedBack, release: (id: string) => gates.get(id)?.() };
}


describe("workerGroup.close: stopping a worker process", () => {
  let redis: Redis;
  let producer: Producer;
  let prefix: string;
  const groups: WorkerGroup[] = [];

  const start = (processor: Processor<"deliverWebhook">, concurrency = 4) => {
    const group = workerGroup([createTypedWorker("deliverWebhook", processor, { connection: redis, prefix, concurrency, logger, lockDurationMs: LOCK_MS })]);
    groups.push(group);
    return group;
  };
  const enqueue = async () => {
    const deliveryId = randomUUID();
    const job = await producer.enqueue("deliverWebhook", { v: 1, deliveryId });
    return { deliveryId, job };
  };

  beforeEach(async () => {
    prefix = testQueuePrefix("worker-group");
    redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "worker");
    producer = createProducer({ connection: redis, prefix });
  });
  afterEach(async () => {
    await Promise.all(groups.splice(0).map((g) => g.close({ graceMs: 0 })));
    await producer.close();
    await deleteRedisKeys(redis, prefix);
    await redis.quit();
  });

  it("takes no new job once closing, and finishes the one in flight within the grace period", async () => {
    // One at a time: the second job waits in the queue while the first runs.
    const a = gatedProcessor();
    const group = start(a.processor, 1);
    await group.ready();
    const first = await enqueue();
    await until(() => a.started.length === 1, "the first job started");
    const second = await enqueue();

    const closing = group.close({ graceMs: 60_000 });
    a.release(first.deliveryId);
    expect(await closing).toEqual({ handedBack: 0 });

    expect(await first.job.getState()).toBe("completed");
    expect(a.started.map((s) => s.deliveryId)).toEqual([first.deliveryId]);
    expect(await second.job.getState()).toBe("waiting");
  });

  it("hands a job still running at the bound back to the queue, where another replica starts it at once", async () => {
    const a = gatedProcessor();
    const group = start(a.processor);
    await group.ready();
    const { deliveryId, job } = await enqueue();
    await until(() => a.started.length === 1, "the job started on the first replica");
    expect(a.handedBack.get(deliveryId)?.()).toBe(false);

    // Never released: the first replica's job is still running when its grace period ends.
    expect(await group.close({ graceMs: 100 })).toEqual({ handedBack: 1 });
    // The abandoned run can tell, and stop before its next write (the tx-worker does).
    expect(a.handedBack.get(deliveryId)?.()).toBe(true);
    // Back in the wait list with its lock released, not left active for the stalled-job check.
    expect(await job.getState()).toBe("waiting");
    expect(await redis.exists(`${prefix}:webhook-delivery:${job.id}:lock`)).toBe(0);

    const b = gatedProcessor();
    await start(b.processor).ready();
    await until(() => b.started.length === 1, "the job started on the second replica");
    b.release(deliveryId);
    await until(async () => (await job.getState()) === "completed", "the job completed on the second replica");
    // A hand-back is not a failed attempt: the second replica starts it with the retry budget untouched.
    expect(b.started).toEqual([{ deliveryId, attemptsMade: 0 }]);
    const finished = await producer.queue("deliverWebhook").getJob(job.id!);
    expect(finished?.returnvalue).toEqual({ done: deliveryId });
  });
});
