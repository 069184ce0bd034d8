import { once } from "node:events";
import { Redis } from "ioredis";
import type { Options } from "express-rate-limit";
import { deleteRedisKeys, testQueuePrefix } from "@relay/testing";
import { CoalescingRedisStore } from "./rate-limit-store";

const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

describe("CoalescingRedisStore", () => {
  let redis: Redis;
  let monitor: Redis;
  const prefix = `${testQueuePrefix("rl-store")}:ratelimit:`;

  beforeAll(() => {
    redis = new Redis(redisUrl);
    monitor = new Redis(redisUrl);
  });
  afterAll(async () => {
    await deleteRedisKeys(redis, prefix);
    await Promise.all([redis.quit(), monitor.quit()]);
  });

  const storeWithWindow = (windowMs: number) => {
    const store = new CoalescingRedisStore(redis, prefix);
    store.init({ windowMs } as Options);
    return store;
  };

  test("concurrent hits of one key get the totals of sequential increments, with at most two Redis calls", async () => {
    const store = storeWithWindow(60_000);
    const key = "key-concurrent";
    const seen: string[] = [];
    const watching = await monitor.monitor();
    watching.on("monitor", (_time: string, args: string[]) => {
      if (args.includes(prefix + key)) seen.push(args[0]!.toUpperCase());
    });
    await new Promise((r) => setTimeout(r, 50));

    const results = await Promise.all(Array.from({ length: 50 }, () => store.increment(key)));

    expect(results.map((r) => r.totalHits)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(await redis.get(prefix + key)).toBe("50");
    for (const r of results) expect(r.resetTime!.getTime()).toBeGreaterThan(Date.now() + 50_000);
    await new Promise((r) => setTimeout(r, 50));
    watching.disconnect();
    const scriptCalls = seen.filter((c) => c === "EVALSHA" || c === "EVAL");
    expect(scriptCalls.length).toBeGreaterThanOrEqual(1);
    expect(scriptCalls.length).toBeLessThanOrEqual(2);
  });

  test("a window that ran out starts again at the next hit", async () => {
    const store = storeWithWindow(200);
    const key = "key-window";
    expect((await store.increment(key)).totalHits).toBe(1);
    expect((await store.increment(key)).totalHits).toBe(2);
    await new Promise((r) => setTimeout(r, 300));
    expect((await store.increment(key)).totalHits).toBe(1);
  });

  test("works after Redis forgot the script (SCRIPT FLUSH, a restarted Redis)", async () => {
    const store = storeWithWindow(60_000);
    const key = "key-flush";
    expect((await store.increment(key)).totalHits).toBe(1);
    await redis.script("FLUSH");
    expect((await store.increment(key)).totalHits).toBe(2);
  });

  test("decrement and resetKey", async () => {
    const store = storeWithWindow(60_000);
    const key = "key-reset";
    await store.increment(key);
    await store.increment(key);
    await store.decrement(key);
    expect(await redis.get(prefix + key)).toBe("1");
    await store.resetKey(key);
    expect(await redis.get(prefix + key)).toBeNull();
  });

  test("hits pass uncounted and the error is reported while Redis cannot be asked; counted again once it can", async () => {
    const offline = new Redis(redisUrl, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    const errors: Error[] = [];
    try {
      const store = new CoalescingRedisStore(offline, prefix, (e) => errors.push(e));
      store.init({ windowMs: 60_000 } as Options);
      expect((await store.increment("key-offline")).totalHits).toBe(1);
      expect(errors).toHaveLength(1);
      // The failed call started the connection (ioredis connects on a command).
      if (offline.status !== "ready") await once(offline, "ready");
      expect((await store.increment("key-offline")).totalHits).toBe(1);
    } finally {
      offline.disconnect();
    }
  });
});
