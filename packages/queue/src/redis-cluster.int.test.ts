import { randomBytes, randomUUID } from "node:crypto";
import { createLogger } from "@relay/core";
import { deleteRedisKeys, startRedisCluster, type TestRedisCluster } from "@relay/testing";
import { Cluster } from "ioredis";
import { createRedis, redisReady, type Redis } from "./connection";
import { createProducer, createResultWaiter } from "./producer";
import { createTypedWorker } from "./worker";
import { workerGroup } from "./worker-group";

const keySlot: (key: string) => number = require("cluster-key-slot");
const logger = createLogger({ name: "redis-cluster-test", level: "silent" });

/**
 * The queues on a real Redis Cluster (three masters, three replicas of the machine's redis-server):
 * what createRedis builds from REDIS_CLUSTER_NODES, with a hash-tagged prefix, enqueues, runs,
 * schedules and reports results; a prefix without a tag cannot (why the configuration refuses it);
 * and a master lost under the queue's slot is survived once its replica is promoted.
 */
describe("queues on a Redis Cluster", () => {
  let cluster: TestRedisCluster;
  let worker: Redis;
  let producer: Redis;
  const prefixes: string[] = [];

  beforeAll(async () => {
    cluster = await startRedisCluster({ nodeTimeoutMs: 1000 });
    const target = { redisUrl: "redis://127.0.0.1:1", redisClusterNodes: cluster.seeds };
    worker = createRedis(target, "worker");
    producer = createRedis(target, "producer");
    await Promise.all([redisReady(worker), redisReady(producer)]);
  }, 60_000);
  afterAll(async () => {
    try {
      for (const prefix of prefixes) await deleteRedisKeys(worker, prefix);
    } finally {
      worker?.disconnect();
      producer?.disconnect();
      await cluster?.stop();
    }
  });

  /** One round of the relay's queue traffic under `prefix`: a result waited for, a delivery, a schedule. */
  async function roundTrip(prefix: string): Promise<void> {
    prefixes.push(prefix);
    const jobs = createProducer({ connection: producer, prefix });
    const results = createResultWaiter("personalSign", { connection: producer, prefix });
    const group = workerGroup([
      createTypedWorker("personalSign", async (p) => ({ signed: p.v === 1 ? p.signatureId : p.signatures[0]!.signatureId }), { connection: worker, prefix, concurrency: 2, logger }),
      createTypedWorker("deliverWebhook", async () => ({ delivered: true }), { connection: worker, prefix, concurrency: 2, logger }),
    ]);
    try {
      await results.ready();
      await group.ready();
      await jobs.schedule("reconcileDeliveries");
      const signatureId = randomUUID();
      const batch = randomBytes(8).toString("hex");
      const signed = results.expect(`sign-${batch}`, 15_000);
      await jobs.enqueue("personalSign", { v: 2, batch, signatures: [{ signatureId }] });
      const delivery = await jobs.enqueue("deliverWebhook", { v: 1, deliveryId: randomUUID() });
      expect(await signed).toEqual({ signed: signatureId });
      const deadline = Date.now() + 15_000;
      while ((await delivery.getState()) !== "completed" && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(await delivery.getState()).toBe("completed");
    } finally {
      await group.close();
      await results.close();
      await jobs.close();
    }
  }

  it("builds ioredis' Cluster client from the seeds and runs the queues under a hash-tagged prefix", async () => {
    expect(worker).toBeInstanceOf(Cluster);
    expect(producer).toBeInstanceOf(Cluster);
    await roundTrip(`{relay-test-${randomBytes(4).toString("hex")}}`);
  }, 60_000);

  it("(why the configuration refuses it) cannot run a queue whose prefix has no hash tag", async () => {
    const prefix = `relay-test-${randomBytes(4).toString("hex")}`;
    prefixes.push(prefix);
    const jobs = createProducer({ connection: producer, prefix });
    try {
      await expect(jobs.enqueue("deliverWebhook", { v: 1, deliveryId: randomUUID() })).rejects.toThrow(/CROSSSLOT/);
    } finally {
      await jobs.close();
    }
  }, 30_000);

  it("deletes a test's keys from every master", async () => {
    const prefix = `relay-test-${randomBytes(4).toString("hex")}:`;
    const keys = Array.from({ length: 50 }, (_, i) => `${prefix}${i}`);
    expect(new Set(keys.map(keySlot)).size).toBeGreaterThan(3); // spread over the three masters
    for (const key of keys) await worker.set(key, "1");
    expect(await deleteRedisKeys(worker, prefix)).toBe(50);
    expect(await Promise.all(keys.map((k) => worker.exists(k)))).toEqual(keys.map(() => 0));
  }, 30_000);

  it("keeps running the queues after the master of their slot is lost and its replica promoted", async () => {
    const tag = `relay-test-${randomBytes(4).toString("hex")}`;
    await roundTrip(`{${tag}}`);
    const owner = await masterOfSlot(keySlot(tag));
    const before = await cluster.masterPorts();
    await cluster.kill(owner);
    await cluster.waitHealthy(30_000);
    const after = await cluster.masterPorts();
    expect(after).not.toContain(owner);
    expect(after.filter((p) => !before.includes(p))).toHaveLength(1); // the replica, promoted
    // The clients learn the new owner of the slot on their next command (MOVED, or a refused
    // connection and a slot refresh); the queues then carry on on the same connections.
    await untilWritable(`{${tag}}:probe`);
    await roundTrip(`{${tag}}`);
  }, 90_000);

  async function untilWritable(key: string): Promise<void> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const ok = await Promise.all([worker.set(key, "1"), producer.set(key, "1")]).then(() => true, () => false);
      if (ok) return;
      if (Date.now() > deadline) throw new Error(`${key} not writable 20 s after the failover`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async function masterOfSlot(slot: number): Promise<number> {
    const ranges = await (worker as Cluster).cluster("SLOTS");
    const master = ranges.find(([from, to]) => slot >= from && slot <= to)?.[2];
    if (!master) throw new Error(`no master owns slot ${slot}`);
    return master[1];
  }
});
