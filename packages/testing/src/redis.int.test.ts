import Redis from "ioredis";
import { loadGatewayConfig } from "@relay/config";
import { deleteRedisKeys, testQueuePrefix } from "./redis";
import { testRunId } from "./run-id";

let redis: Redis;

beforeAll(() => {
  redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { lazyConnect: true, maxRetriesPerRequest: 1 });
});
afterAll(async () => {
  await redis.quit();
});

test("prefixes are unique, carry the run id and label, and are valid queue prefixes", () => {
  const a = testQueuePrefix("personal sign/timeout");
  const b = testQueuePrefix("personal sign/timeout");
  expect(a).not.toBe(b);
  expect(a.startsWith(`relay-test:${testRunId()}:personal-sign-timeout:`)).toBe(true);
  expect(testQueuePrefix("x".repeat(200)).length).toBeLessThanOrEqual(64);
  expect(loadGatewayConfig({ QUEUE_PREFIX: a, WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString("base64") }).queuePrefix).toBe(a);
});

test("deleteRedisKeys removes every key under the prefix and nothing else", async () => {
  const mine = testQueuePrefix("delete");
  const other = testQueuePrefix("delete");
  const keys = Array.from({ length: 2500 }, (_, i) => `${mine}:job:${i}`);
  await redis.mset(...keys.flatMap((k) => [k, "1"]), `${other}:job:1`, "1");

  await expect(deleteRedisKeys(redis, mine)).resolves.toBe(keys.length);

  expect(await redis.exists(keys[0] as string, keys[2499] as string)).toBe(0);
  expect(await redis.exists(`${other}:job:1`)).toBe(1);
  await deleteRedisKeys(redis, other);
});
