import { randomUUID } from "node:crypto";
import { deleteRedisKeys, testQueuePrefix } from "@relay/testing";
import { jobCatalog, jobIdOf } from "./catalog";
import { createRedis } from "./connection";
import { createProducer } from "./producer";
import { wakeJob } from "./wake-job";

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
});
