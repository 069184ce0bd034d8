import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { testRunId } from "./run-id";

/** The characters packages/config accepts in QUEUE_PREFIX, and its length limit. */
const UNSAFE = /[^A-Za-z0-9_.-]/g;
const MAX_PREFIX = 64;

/**
 * A Redis key prefix no other test, worker or run shares: `relay-test:<runId>:<label>:<rand>`.
 * Pass it as the queue prefix so parallel tests on one Redis never see each other's jobs; the
 * label is shortened and cleaned to stay a valid QUEUE_PREFIX.
 */
export function testQueuePrefix(label: string): string {
  const head = `relay-test:${testRunId()}:`;
  const tail = `:${randomBytes(4).toString("hex")}`;
  const cleaned = label.replace(UNSAFE, "-").slice(0, MAX_PREFIX - head.length - tail.length) || "test";
  return `${head}${cleaned}${tail}`;
}

/**
 * Deletes every key under `prefix` (SCAN + UNLINK, so a big keyspace does not block Redis).
 * Use a client without ioredis' `keyPrefix`, which SCAN would not apply. Returns the count.
 */
export async function deleteRedisKeys(redis: Redis, prefix: string): Promise<number> {
  const pattern = `${prefix.replace(/[*?[\]\\]/g, "\\$&")}*`;
  let cursor = "0";
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
    if (keys.length > 0) deleted += await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== "0");
  return deleted;
}
