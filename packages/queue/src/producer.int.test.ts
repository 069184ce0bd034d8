import { randomUUID } from "node:crypto";
import { deleteRedisKeys, testQueuePrefix } from "@relay/testing";
import { createProducer } from "./producer";
import { createRedis } from "./connection";

const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

describe("producer", () => {
  const redis = createRedis(redisUrl, "worker");
  const prefix = testQueuePrefix("producer");
  const producer = createProducer({ connection: redis, prefix });

  afterAll(async () => {
    await producer.close();
    await deleteRedisKeys(redis, prefix);
    await redis.quit();
  });

  test("enqueues made together go out as one addBulk (one round trip), each its own job under its catalog id", async () => {
    const queue = producer.queue("processTransaction");
    await queue.waitUntilReady();
    const addBulk = jest.spyOn(queue, "addBulk");
    const add = jest.spyOn(queue, "add");

    const projectId = randomUUID();
    const ids = Array.from({ length: 20 }, () => randomUUID());
    const jobs = await Promise.all(ids.map((transactionId) => producer.enqueue("processTransaction", { v: 1, projectId, transactionId })));

    expect(jobs.map((j) => j.id)).toEqual(ids.map((id) => `tx-${projectId}-${id}`));
    for (const job of jobs) expect((await queue.getJob(job.id!))?.data).toEqual({ v: 1, projectId, transactionId: job.data.transactionId });
    expect(addBulk).toHaveBeenCalledTimes(1);
    expect(addBulk.mock.calls[0]![0]).toHaveLength(20);
    expect(add).not.toHaveBeenCalled();
    addBulk.mockRestore();
    add.mockRestore();
  });

  test("a payload that does not match the catalog is refused before anything is sent", async () => {
    await expect(producer.enqueue("processTransaction", { v: 1, projectId: "nope", transactionId: randomUUID() })).rejects.toThrow();
  });
});
