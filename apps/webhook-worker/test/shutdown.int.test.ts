import { randomBytes } from "node:crypto";
import { createDatabase, createEventCallbackRepository, createPool, type Database } from "@relay/db";
import { testDatabasePooler } from "@relay/testing";
import { createRedis, type Redis } from "@relay/queue";
import { createProcessGroup, createProjectFixture, createTestDatabase, testKek, testQueuePrefix, type ProcessGroup, type TestDatabase } from "@relay/testing";
import { generateWebhookSecret, sealWebhookSecret } from "@relay/webhooks";
import { closeTestBackends, holdingReceiver, insertStatusChangeEvent, until } from "./support";

type Pool = ReturnType<typeof createPool>;

/** Far longer than the waits below: a delivery that resumes did not wait for the dead lock. */
const JOB_LOCK_MS = "120000";

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
  let receiver: Awaited<ReturnType<typeof holdingReceiver>>;
  let group: ProcessGroup;

  beforeAll(async () => {
    // A database of its own: the dispatcher takes every project's events.
    database = await createTestDatabase({ migrate: true });
    pool = createPool({ url: database.url, poolSize: 2, pooler: testDatabasePooler() });
    db = createDatabase({ pool });
    redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "worker");
    receiver = await holdingReceiver();
    group = createProcessGroup({ databaseUrl: database.url, queuePrefix: prefix, kek: testKek(), webhookKey });
  });
  afterAll(async () => {
    await group?.stopAll();
    await receiver?.close();
    await closeTestBackends({ redis, prefix, db, pool, database });
  });

  it("hands the delivery back, exits 0, and the other replica delivers it", async () => {
    const project = await createProjectFixture(db, testKek());
    await createEventCallbackRepository({ sql: pool, db }).create({
      projectId: project.projectId,
      callbackUrl: receiver.url,
      eventType: "TransactionStatusChange",
      sealSecret: (id) => sealWebhookSecret(keyring, id, generateWebhookSecret()),
    });
    const eventId = await insertStatusChangeEvent(pool, project);

    // The held request must outlive everything here (its own time-out would end the attempt).
    const env = { SHUTDOWN_GRACE_MS: "1000", WEBHOOK_JOB_LOCK_MS: JOB_LOCK_MS, WEBHOOK_TOTAL_TIMEOUT_MS: "300000" };
    const first = await group.startWorker("webhook-worker", "webhook-worker-a", { env });
    await until(() => receiver.received.length === 1, 30_000, "the first delivery attempt");
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
    expect(receiver.received.map((r) => r.headers["webhook-id"])).toEqual([eventId, eventId]);
    // Its job's line comes after the delivery's commit: wait for it (fails if it never comes).
    await expect(second.waitForLog((l) => l.msg === "job completed" && l.queue === "webhook-delivery", 10_000)).resolves.toBeDefined();
  }, 90_000);
});
