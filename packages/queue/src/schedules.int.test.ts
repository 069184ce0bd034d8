import { createLogger } from "@relay/core";
import { deleteRedisKeys, testQueuePrefix } from "@relay/testing";
import { createRedis, redisReady, type Redis } from "./connection";
import { createProducer, type Producer } from "./producer";
import { keepScheduled } from "./schedules";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const logger = createLogger({ name: "schedules-test", level: "silent" });

const until = async (check: () => Promise<boolean>, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
};

/**
 * A Redis that comes back empty loses the reconcilers' schedules; keepScheduled writes them again.
 * The loss is simulated by deleting this test's keys (the shared Redis is never flushed).
 */
describe("keepScheduled", () => {
  const prefix = testQueuePrefix("schedules");
  let redis: Redis;
  let admin: Redis;
  let producer: Producer;
  const schedulers = async () => (await producer.queue("reconcileTransactions").getJobSchedulers()).map((s) => s.key);

  beforeAll(async () => {
    redis = createRedis(REDIS_URL, "worker");
    admin = createRedis(REDIS_URL, "worker");
    await redisReady(redis);
    producer = createProducer({ connection: redis, prefix });
  });
  afterAll(async () => {
    await producer.close();
    await deleteRedisKeys(admin, prefix);
    await Promise.all([redis.quit(), admin.quit()]);
  });

  it("writes the schedules again after a reconnect to a Redis that lost them", async () => {
    const kept = await keepScheduled({ redis, schedule: () => producer.schedule("reconcileTransactions"), logger, everyMs: 3_600_000 });
    try {
      expect(await schedulers()).toEqual(["reconcileTransactions"]);
      await deleteRedisKeys(admin, prefix);
      expect(await schedulers()).toEqual([]);
      redis.disconnect(true); // drop the connection; ioredis reconnects and emits "ready"
      await until(async () => (await schedulers()).length === 1);
      expect(await schedulers()).toEqual(["reconcileTransactions"]);
    } finally {
      kept.stop();
    }
  });

  it("writes them again periodically when they vanish without a reconnect", async () => {
    const kept = await keepScheduled({ redis, schedule: () => producer.schedule("reconcileTransactions"), logger, everyMs: 200 });
    try {
      await deleteRedisKeys(admin, prefix);
      await until(async () => (await schedulers()).length === 1);
      expect(await schedulers()).toEqual(["reconcileTransactions"]);
    } finally {
      kept.stop();
    }
  });
});
