import { randomBytes, randomUUID } from "node:crypto";
import { createLogger } from "@relay/core";
import { deleteRedisKeys } from "@relay/testing";
import { createRedis, type Redis } from "./connection";
import { createProducer, createResultWaiter } from "./producer";
import { createTypedWorker } from "./worker";
import { workerGroup } from "./worker-group";

// ioredis' own slot function (CRC16 of the hash tag, as Redis Cluster computes it).
const keySlot: (key: string) => number = require("cluster-key-slot");

const logger = createLogger({ name: "hash-tag-test", level: "silent" });

async function keysUnder(redis: Redis, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = "0";
  do {
    const [next, found] = await redis.scan(cursor, "MATCH", `${prefix.replace(/[*?[\]\\]/g, "\\$&")}*`, "COUNT", 1000);
    keys.push(...found);
    cursor = next;
  } while (cursor !== "0");
  return keys;
}

/**
 * docs/operations.md, Redis Cluster: BullMQ's scripts touch several keys of a queue at once, so in
 * a cluster they must share a slot. A QUEUE_PREFIX in braces is a hash tag: every key of every
 * queue, job, lock, event stream, schedule and the rate limiter then hashes to the slot of the tag.
 * Run against a plain Redis, whose keys carry the same names a cluster would see.
 */
describe("a hash-tagged queue prefix", () => {
  let redis: Redis;
  const prefixes: string[] = [];

  beforeAll(() => {
    redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "worker");
  });
  afterAll(async () => {
    for (const prefix of prefixes) await deleteRedisKeys(redis, prefix);
    await redis.quit();
  });

  /** Enqueues, schedules, processes and waits for results on three queues under `prefix`; returns every key written. */
  async function exercise(prefix: string): Promise<string[]> {
    prefixes.push(prefix);
    const producer = createProducer({ connection: redis, prefix });
    const results = createResultWaiter("personalSign", { connection: redis, prefix });
    await results.ready();
    const group = workerGroup([
      createTypedWorker("personalSign", async (p) => ({ signed: p.v === 1 ? p.signatureId : p.signatures[0]!.signatureId }), { connection: redis, prefix, concurrency: 2, logger }),
      createTypedWorker("deliverWebhook", async () => ({ delivered: true }), { connection: redis, prefix, concurrency: 2, logger }),
      createTypedWorker("processTransaction", async () => {
        throw new Error("a failure leaves its own keys too");
      }, { connection: redis, prefix, concurrency: 2, logger }),
    ]);
    try {
      await group.ready();
      await producer.schedule("reconcileDeliveries");
      const signatureId = randomUUID();
      const batch = randomBytes(8).toString("hex");
      const signed = results.expect(`sign-${batch}`, 10_000);
      await producer.enqueue("personalSign", { v: 2, batch, signatures: [{ signatureId }] });
      const delivery = await producer.enqueue("deliverWebhook", { v: 1, deliveryId: randomUUID() });
      await producer.enqueue("processTransaction", { v: 1, projectId: randomUUID(), transactionId: randomUUID() });
      expect(await signed).toEqual({ signed: signatureId });
      const deadline = Date.now() + 10_000;
      while ((await delivery.getState()) !== "completed" && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(await delivery.getState()).toBe("completed");
      // The gateway's rate limiter writes under the same prefix (apps/gateway/src/middleware/rate-limit.ts).
      await redis.set(`${prefix}:ratelimit:some-key`, "1", "PX", 60_000);
    } finally {
      await group.close();
      await results.close();
      await producer.close();
    }
    return keysUnder(redis, prefix);
  }

  it("puts every key the relay writes in one cluster slot", async () => {
    const tag = `relay-test-${randomBytes(4).toString("hex")}`;
    const keys = await exercise(`{${tag}}`);
    // Queues, jobs, a schedule, result and event streams, a retry and the rate limiter: a real spread of keys.
    const names = keys.map((k) => k.slice(tag.length + 3));
    expect(names).toEqual(
      expect.arrayContaining(["personal-sign:events", "webhook-delivery:completed", "webhook-reconcile:repeat", "transaction:delayed", "ratelimit:some-key"]),
    );
    expect(new Set(keys.map(keySlot))).toEqual(new Set([keySlot(tag)]));
  });

  it("(the check has teeth) spreads the same keys over many slots without the braces", async () => {
    const keys = await exercise(`relay-test-${randomBytes(4).toString("hex")}`);
    expect(new Set(keys.map(keySlot)).size).toBeGreaterThan(1);
  });
});
