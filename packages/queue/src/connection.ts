import { Redis, type RedisOptions } from "ioredis";

export type { Redis } from "ioredis";

/**
 * Redis connections for BullMQ. Workers block on Redis and must retry forever
 * (`maxRetriesPerRequest: null`, BullMQ's requirement); producers on a request path fail fast
 * instead, so an HTTP request gets an answer while Redis is down rather than hanging.
 */
export function createRedis(url: string, role: "worker" | "producer"): Redis {
  const options: RedisOptions =
    role === "worker"
      ? { maxRetriesPerRequest: null, enableReadyCheck: true }
      : { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000, commandTimeout: 5000 };
  return new Redis(url, { ...options, lazyConnect: false });
}

/** Resolves once the connection is ready (a producer refuses commands before that). */
export async function redisReady(redis: Redis, timeoutMs = 10_000): Promise<void> {
  if (redis.status === "ready") return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`Redis did not become ready within ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      cleanup();
      resolve();
    };
    const cleanup = () => {
      clearTimeout(timer);
      redis.off("ready", onReady);
    };
    redis.on("ready", onReady);
  });
}
