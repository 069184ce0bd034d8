import { randomUUID } from "node:crypto";
import { deleteRedisKeys, testQueuePrefix } from "@relay/testing";
import { jobCatalog, jobIdOf } from "./catalog";
import { createRedis } from "./connection";
import { createProducer } from "./producer";
import { wakeJob } from "./wake-job";
import { createLogger } from "@relay/core";
import { createTypedWorker, runAgainIn } from "./worker";

const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

describe("wakeJob", () => {
  const redis = createRedis(redisUrl, "worker");
  const prefix = testQueuePrefix("wake-job");
  const producer = createProducer({ connection: redis, prefix });
  const queue = producer.queue("processTransaction");

  afterAll(async () => {
    await producer.close();
    await deleteRedisKeys(redis, prefix);
    await redis.quit();
  });

  test("a job waiting out a delay is made due now, the same job", async () => {
    const payload = { v: 1 as const, projectId: randomUUID(), transactionId: randomUUID() };
    const id = jobIdOf("processTransaction", payload);
    await queue.add("processTransaction", payload, { ...jobCatalog.processTransaction.options, jobId: id, delay: 3_600_000 });
    expect(await (await queue.getJob(id))!.getState()).toBe("delayed");

    await wakeJob(producer, "processTransaction", payload);

    expect(await (await queue.getJob(id))!.getState()).toBe("waiting");
  });

  test("a lost job is added again; a waiting one is left as it is", async () => {
    const payload = { v: 1 as const, projectId: randomUUID(), transactionId: randomUUID() };
    const id = jobIdOf("processTransaction", payload);
    expect(await queue.getJob(id)).toBeUndefined();
    await wakeJob(producer, "processTransaction", payload);
    const job = await queue.getJob(id);
    expect(await job!.getState()).toBe("waiting");
    await wakeJob(producer, "processTransaction", payload);
    expect((await queue.getJob(id))!.timestamp).toBe(job!.timestamp);
  });

  test("with activeGraceMs, a running job that then puts itself back to wait out a delay is made due once delayed", async () => {
    const payload = { v: 1 as const, chainId: String(40_000 + Math.floor(Math.random() * 1000)) };
    const id = jobIdOf("followBlocks", payload);
    const followers = producer.queue("followBlocks");
    let runs = 0;
    let running!: () => void;
    const started = new Promise<void>((resolve) => (running = resolve));
    const worker = createTypedWorker(
      "followBlocks",
      async () => {
        runs++;
        running();
        // Decided to sleep an hour before the wake came; puts itself back 300 ms after it.
        await new Promise((resolve) => setTimeout(resolve, 300));
        return runAgainIn(3_600_000);
      },
      { connection: redis, prefix, concurrency: 1, logger: createLogger({ name: "wake-job-test", level: "silent" }) },
    );
    try {
      await producer.enqueue("followBlocks", payload);
      await started;
      expect(await (await followers.getJob(id))!.getState()).toBe("active");
      await wakeJob(producer, "followBlocks", payload, { activeGraceMs: 2_000 });
      for (const deadline = Date.now() + 5_000; runs < 2 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(runs).toBe(2);
    } finally {
      await worker.close(true);
    }
  });

  test("without activeGraceMs, a running job is left as it is", async () => {
    const payload = { v: 1 as const, chainId: String(41_000 + Math.floor(Math.random() * 1000)) };
    const id = jobIdOf("followBlocks", payload);
    const followers = producer.queue("followBlocks");
    let running!: () => void;
    const started = new Promise<void>((resolve) => (running = resolve));
    const worker = createTypedWorker(
      "followBlocks",
      async () => {
        running();
        await new Promise((resolve) => setTimeout(resolve, 300));
        return runAgainIn(3_600_000);
      },
      { connection: redis, prefix, concurrency: 1, logger: createLogger({ name: "wake-job-test", level: "silent" }) },
    );
    try {
      await producer.enqueue("followBlocks", payload);
      await started;
      await wakeJob(producer, "followBlocks", payload);
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(await (await followers.getJob(id))!.getState()).toBe("delayed");
    } finally {
      await worker.close(true);
    }
  });
});
