import { randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createDatabase, createEventCallbackRepository, createPool, type Database } from "@relay/db";
import { createRedis, type Redis } from "@relay/queue";
import { createProjectFixture, createTestDatabase, deleteRedisKeys, testKek, testQueuePrefix, type TestDatabase } from "@relay/testing";
import { generateWebhookSecret, sealWebhookSecret } from "@relay/webhooks";
import { createProcessGroup, type ProcessGroup } from "../../tx-worker/test/processes";

type Pool = ReturnType<typeof createPool>;

/** Far longer than the waits below: a delivery that resumes did not wait for the dead lock. */
const JOB_LOCK_MS = "120000";

const until = async (check: () => boolean | Promise<boolean>, timeoutMs: number, what: string) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

/**
 * docs/operations.md, graceful shutdown: a webhook-worker stopped with SIGTERM while a receiver
 * holds its delivery open past SHUTDOWN_GRACE_MS hands the job back to the queue and exits 0; the
 * other replica delivers it at once, long before the stopped worker's job lock would have expired.
 */
describe("a webhook-worker stopped while a delivery outlasts its grace period", () => {
  const webhookKey = randomBytes(32);
  const keyring = { activeKeyId: "k1", keys: new Map([["k1", webhookKey]]) };
  const prefix = testQueuePrefix("webhook-shutdown");
  let database: TestDatabase;
  let pool: Pool;
  let db: Database;
  let redis: Redis;
  let server: Server;
  let group: ProcessGroup;
  const received: IncomingHttpHeaders[] = [];
  const held: ServerResponse[] = [];

  beforeAll(async () => {
    // A database of its own: the dispatcher takes every project's events.
    database = await createTestDatabase({ migrate: true });
    pool = createPool({ url: database.url, poolSize: 2 });
    db = createDatabase({ pool });
    redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "worker");
    // The first request is held open (never answered); every later one gets 200.
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        received.push(req.headers);
        if (received.length === 1) held.push(res);
        else res.end("ok");
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    group = createProcessGroup({ databaseUrl: database.url, queuePrefix: prefix, kek: testKek(), webhookKey });
  });
  afterAll(async () => {
    await group?.stopAll();
    for (const res of held) res.destroy();
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
    if (redis) {
      await deleteRedisKeys(redis, prefix);
      await redis.quit();
    }
    await db?.$disconnect();
    if (pool && !pool.ended) await pool.end();
    await database?.drop();
  });

  it("hands the delivery back, exits 0, and the other replica delivers it", async () => {
    const project = await createProjectFixture(db, testKek());
    await createEventCallbackRepository({ sql: pool, db }).create({
      projectId: project.projectId,
      callbackUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
      eventType: "TransactionStatusChange",
      sealSecret: (id) => sealWebhookSecret(keyring, id, generateWebhookSecret()),
    });
    const eventId = randomUUID();
    const payload = {
      id: eventId,
      eventType: "TransactionStatusChange",
      projectId: project.projectId,
      createdAt: new Date().toISOString(),
      data: { transactionId: randomUUID(), chainId: 31337, status: "PENDING", previousStatus: null, hash: null, blockNumber: null, from: project.wallets[0]!.address, nonce: null, reason: null },
    };
    await pool.query(`INSERT INTO event (id, project_id, event_type, payload, created_at) VALUES ($1, $2, 'TransactionStatusChange', $3, now())`, [
      eventId,
      project.projectId,
      JSON.stringify(payload),
    ]);

    // The held request must outlive everything here (its own time-out would end the attempt).
    const env = { SHUTDOWN_GRACE_MS: "1000", WEBHOOK_JOB_LOCK_MS: JOB_LOCK_MS, WEBHOOK_TOTAL_TIMEOUT_MS: "300000" };
    const first = await group.startWorker("webhook-worker", "webhook-worker-a", { env });
    await until(() => received.length === 1, 30_000, "the first delivery attempt");
    const second = await group.startWorker("webhook-worker", "webhook-worker-b", { env });

    first.kill("SIGTERM");
    expect(await first.exited).toEqual({ code: 0, signal: null });
    expect(first.logs.find((l) => l.msg === "job handed back to the queue (process stopping)")).toMatchObject({ queue: "webhook-delivery" });
    const order = first.logs.map((l) => l.msg).filter((m) => m.startsWith("stopping") || m.startsWith("jobs in flight") || m === "stopped");
    expect(order).toEqual(["stopping: taking no new work, finishing work in flight", "jobs in flight finished or handed back; closing connections", "stopped"]);
    expect(first.logs.find((l) => l.msg.startsWith("jobs in flight"))).toMatchObject({ handedBack: 1 });

    // The other replica delivers it now, not after the stopped worker's lock (JOB_LOCK_MS) expires.
    await until(
      async () => (await pool.query(`SELECT status FROM webhook_delivery WHERE event_id = $1`, [eventId])).rows[0]?.status === "DELIVERED",
      30_000,
      "the delivery recorded as DELIVERED",
    );
    expect(received.map((h) => h["webhook-id"])).toEqual([eventId, eventId]);
    expect(second.logs.some((l) => l.msg === "job completed" && l.queue === "webhook-delivery")).toBe(true);
  }, 90_000);
});
