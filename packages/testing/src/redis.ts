import { randomBytes } from "node:crypto";
import { Cluster, type Redis as SingleRedis } from "ioredis";

/** One Redis or a Redis Cluster (what @relay/queue's createRedis returns). */
type Redis = SingleRedis | Cluster;
import { testRunId } from "./run-id";

/** The characters packages/config accepts in QUEUE_PREFIX, and its length limit. */
const UNSAFE = /[^A-Za-z0-9_.-]/g;
const MAX_PREFIX = 64;

/**
 * A Redis key prefix no other test, worker or run shares: `relay-test:<runId>:<label>:<rand>`.
 * Pass it as the queue prefix so parallel tests on one Redis never see each other's jobs; the
 * label is shortened and cleaned to stay a valid QUEUE_PREFIX. `hashTag`: the same in braces, as
 * a Redis Cluster needs it (every key of the prefix in one slot).
 */
export function testQueuePrefix(label: string, options: { hashTag?: boolean } = {}): string {
  const [open, close] = options.hashTag ? ["{", "}"] : ["", ""];
  const head = `${open}relay-test:${testRunId()}:`;
  const tail = `:${randomBytes(4).toString("hex")}${close}`;
  const cleaned = label.replace(UNSAFE, "-").slice(0, MAX_PREFIX - head.length - tail.length) || "test";
  return `${head}${cleaned}${tail}`;
}

/**
 * Deletes every key under `prefix` (SCAN + UNLINK, so a big keyspace does not block Redis).
 * Use a client without ioredis' `keyPrefix`, which SCAN would not apply. Returns the count.
 */
export async function deleteRedisKeys(redis: Redis, prefix: string): Promise<number> {
  let deleted = 0;
  const cluster = redis instanceof Cluster;
  for (const node of mastersOf(redis)) {
    await scanKeys(node, prefix, async (keys) => {
      if (!cluster) {
        deleted += await node.unlink(...keys);
        return;
      }
      // One key per UNLINK: the keys one master holds may still lie in different slots.
      const results = (await keys.reduce((p, key) => p.unlink(key), node.pipeline()).exec()) ?? [];
      for (const [error, count] of results) {
        if (error) throw error;
        deleted += Number(count);
      }
    });
  }
  return deleted;
}

/** SCAN covers one server: on a cluster, every master holds its own share of the keys. */
function mastersOf(redis: Redis): SingleRedis[] {
  return redis instanceof Cluster ? redis.nodes("master") : [redis];
}

async function scanKeys(redis: SingleRedis, prefix: string, onKeys: (keys: string[]) => Promise<void>): Promise<void> {
  const pattern = `${prefix.replace(/[*?[\]\\]/g, "\\$&")}*`;
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
    if (keys.length > 0) await onKeys(keys);
    cursor = next;
  } while (cursor !== "0");
}

/**
 * Every key under `prefix` with its value(s), read by type, as one JSON string per key: what a
 * test scans for secrets that must never reach Redis.
 */
export async function readRedisValues(redis: Redis, prefix: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const node of mastersOf(redis)) {
    await scanKeys(node, prefix, async (keys) => {
    for (const key of keys) {
      const type = await redis.type(key);
      let value: unknown;
      if (type === "string") value = await redis.get(key);
      else if (type === "hash") value = await redis.hgetall(key);
      else if (type === "list") value = await redis.lrange(key, 0, -1);
      else if (type === "set") value = await redis.smembers(key);
      else if (type === "zset") value = await redis.zrange(key, "0", "-1", "WITHSCORES");
      else if (type === "stream") value = await redis.xrange(key, "-", "+");
      else if (type === "none") continue; // gone between SCAN and TYPE
      else throw new Error(`Redis key ${key} has a type this reader does not know: ${type}`);
      out.set(key, JSON.stringify(value));
    }
    });
  }
  return out;
}
