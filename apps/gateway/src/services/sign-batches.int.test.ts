import { randomUUID } from "node:crypto";
import { createLogger } from "@relay/core";
import { createProducer, createRedis, createResultWaiter, createTypedWorker, redisReady, type JobPayload } from "@relay/queue";
import { deleteRedisKeys, testQueuePrefix } from "@relay/testing";
import { createSignBatches } from "./sign-batches";

const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const logger = createLogger({ name: "test", level: "silent" });
const signatureOf = (projectId: string, signatureId: string) => `sig-${projectId}-${signatureId}`;

describe("sign batches", () => {
  const prefix = testQueuePrefix("sign-batches");
  const redis = createRedis(redisUrl, "worker");
  const producer = createProducer({ connection: redis, prefix });
  const results = createResultWaiter("personalSign", { connection: redis, prefix });
  let worker: ReturnType<typeof createTypedWorker> | undefined;
  const jobs: JobPayload<"personalSign">[] = [];

  const projectId = randomUUID();
  /** Answers every request of a batch with a made-up signature of its project and id, or "gone" for ids in `gone`. */
  const startWorker = async (gone: Set<string> = new Set()) => {
    worker = createTypedWorker(
      "personalSign",
      async (payload) => {
        jobs.push(payload);
        if (payload.v !== 3) throw new Error("expected a v3 batch");
        const answers = payload.signatures.map((s) => (gone.has(s.signatureId) ? { outcome: "gone" } : { outcome: "signed", signature: signatureOf(s.projectId, s.signatureId) }));
        return { v: 3, results: answers };
      },
      { connection: redis, prefix, concurrency: 4, logger },
    );
    await worker.waitUntilReady();
  };

  beforeAll(() => results.ready());
  afterEach(async () => {
    await worker?.close();
    worker = undefined;
    jobs.length = 0;
  });
  afterAll(async () => {
    await results.close();
    await producer.close();
    await deleteRedisKeys(redis, prefix);
    await redis.quit();
  });

  test("requests made together go out as one job, and each gets its own outcome", async () => {
    await startWorker();
    const batches = createSignBatches({ producer, results, timeoutMs: 5000 });
    const ids = Array.from({ length: 20 }, () => randomUUID());
    const outcomes = await Promise.all(ids.map((id, i) => batches.sign(projectId, id, `req-${i}`)));
    expect(outcomes).toEqual(ids.map((id) => ({ outcome: "signed", signature: signatureOf(projectId, id) })));
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ v: 3, signatures: ids.map((signatureId, i) => ({ projectId, signatureId, reqId: `req-${i}` })) });
  });

  test("two projects' requests under one signatureId in one batch each get their own outcome", async () => {
    await startWorker();
    const batches = createSignBatches({ producer, results, timeoutMs: 5000 });
    const id = randomUUID();
    const projects = [randomUUID(), randomUUID()];
    const outcomes = await Promise.all(projects.map((p) => batches.sign(p, id)));
    expect(outcomes).toEqual(projects.map((p) => ({ outcome: "signed", signature: signatureOf(p, id) })));
    expect(jobs).toHaveLength(1);
  });

  test("requests made while a batch is being enqueued wait and go out together in the next one", async () => {
    await startWorker();
    const batches = createSignBatches({ producer, results, timeoutMs: 5000 });
    const first = batches.sign(projectId, randomUUID());
    await new Promise((r) => setImmediate(r)); // the first batch's enqueue is now out
    const later = Array.from({ length: 10 }, () => batches.sign(projectId, randomUUID()));
    await Promise.all([first, ...later]);
    expect(jobs.map((j) => (j.v === 3 ? j.signatures.length : 0)).sort((a, b) => a - b)).toEqual([1, 10]);
  });

  test("a request answered gone by the worker gets gone; the rest of its batch is signed", async () => {
    const gone = randomUUID();
    await startWorker(new Set([gone]));
    const batches = createSignBatches({ producer, results, timeoutMs: 5000 });
    const kept = randomUUID();
    expect(await Promise.all([batches.sign(projectId, gone), batches.sign(projectId, kept)])).toEqual([{ outcome: "gone" }, { outcome: "signed", signature: signatureOf(projectId, kept) }]);
  });

  test("no worker: every request of the batch times out, after its job was removed from the queue", async () => {
    const batches = createSignBatches({ producer, results, timeoutMs: 300 });
    const signing = [batches.sign(projectId, randomUUID()), batches.sign(projectId, randomUUID())];
    for (const s of signing) await expect(s).rejects.toMatchObject({ code: "TIMEOUT" });
    const queue = producer.queue("personalSign");
    expect(await queue.getWaitingCount()).toBe(0);
  });

  test("a batch that cannot be enqueued fails its requests at once", async () => {
    const lost = createRedis(redisUrl, "producer");
    await redisReady(lost);
    const lostProducer = createProducer({ connection: lost, prefix });
    await lostProducer.queue("personalSign").waitUntilReady();
    lost.disconnect(); // Redis gone: the producer's connection does not queue commands
    const batches = createSignBatches({ producer: lostProducer, results, timeoutMs: 5000 });
    await expect(batches.sign(projectId, randomUUID())).rejects.toThrow(/writeable|closed/i);
  });

  test("an enqueue that hangs (Redis never came up) fails its batch after the time-out and frees the way for the next", async () => {
    const never = createRedis("redis://127.0.0.1:1", "producer");
    never.on("error", () => undefined);
    const stuckProducer = createProducer({ connection: never, prefix });
    stuckProducer.queue("personalSign").on("error", () => undefined);
    try {
      const batches = createSignBatches({ producer: stuckProducer, results, timeoutMs: 300 });
      await expect(batches.sign(projectId, randomUUID())).rejects.toMatchObject({ code: "TIMEOUT" });
      await expect(batches.sign(projectId, randomUUID())).rejects.toMatchObject({ code: "TIMEOUT" });

      // A request queued behind the hung batch gets the same time-out, counted from its own start.
      const slow = createSignBatches({ producer: stuckProducer, results, timeoutMs: 1000 });
      const first = slow.sign(projectId, randomUUID());
      first.catch(() => undefined);
      await new Promise((r) => setImmediate(r));
      const started = Date.now();
      await expect(slow.sign(projectId, randomUUID())).rejects.toMatchObject({ code: "TIMEOUT" });
      expect(Date.now() - started).toBeLessThan(1600); // not 1000 behind the first and 1000 of its own
      await expect(first).rejects.toMatchObject({ code: "TIMEOUT" });
    } finally {
      never.disconnect();
    }
  });
});
