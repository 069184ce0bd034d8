import { randomBytes } from "node:crypto";
import { createDatabase, createEventCallbackRepository, createPool, type Database } from "@relay/db";
import { createProcessGroup, createProjectFixture, createTestDatabase, testKek, testQueuePrefix, type ProcessGroup, type TestDatabase } from "@relay/testing";
import { createRedis, type Redis } from "@relay/queue";
import { generateWebhookSecret, sealWebhookSecret, signDelivery } from "@relay/webhooks";
import { closeTestBackends, holdingReceiver, insertStatusChangeEvent, until } from "./support";

type Pool = ReturnType<typeof createPool>;

/**
 * At-least-once across a crash: a webhook-worker process is killed (SIGKILL) while the receiver
 * holds its delivery open; a new process delivers the event anyway (BullMQ gives the dead
 * worker's job to the new one once its lock has expired: WEBHOOK_JOB_LOCK_MS, short here). The
 * receiver may see the event twice, with the same webhook-id.
 */

jest.setTimeout(60_000);

describe("webhook-worker killed mid-delivery", () => {
  let database: TestDatabase;
  let pool: Pool;
  let db: Database;
  let redis: Redis;
  let receiver: Awaited<ReturnType<typeof holdingReceiver>>;
  let group: ProcessGroup;
  const prefix = testQueuePrefix("webhook-kill");
  const webhookKey = randomBytes(32);
  const keyring = { activeKeyId: "k1", keys: new Map([["k1", webhookKey]]) };

  beforeAll(async () => {
    // A database of its own: the dispatcher takes every project's events.
    database = await createTestDatabase({ migrate: true });
    pool = createPool({ url: database.url });
    db = createDatabase({ pool });
    redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "producer");
    receiver = await holdingReceiver();
    group = createProcessGroup({ databaseUrl: database.url, queuePrefix: prefix, kek: testKek(), webhookKey });
  });
  afterAll(async () => {
    await group?.stopAll();
    await receiver?.close();
    await closeTestBackends({ redis, prefix, db, pool, database });
  });

  it("delivers the event after the worker holding it was killed", async () => {
    const project = await createProjectFixture(db, testKek());
    const secret = generateWebhookSecret();
    const registration = await createEventCallbackRepository({ sql: pool, db }).create({
      projectId: project.projectId,
      callbackUrl: receiver.url,
      eventType: "TransactionStatusChange",
      sealSecret: (id) => sealWebhookSecret(keyring, id, secret),
    });
    const eventId = await insertStatusChangeEvent(pool, project);

    const env = {
      WEBHOOK_RETRY_SCHEDULE: "200ms,200ms,200ms,200ms,200ms",
      // The dead worker's lock expires after this and the next stalled check (one to three times it).
      WEBHOOK_JOB_LOCK_MS: "2000",
    };
    const first = await group.startWorker("webhook-worker", "webhook-worker-1", { env });
    await until(() => receiver.received.length >= 1, 20_000, "the first delivery attempt");
    first.kill("SIGKILL");
    await first.exited;
    // The held request went nowhere: the receiver answers the next ones.
    receiver.release();

    await group.startWorker("webhook-worker", "webhook-worker-2", { env });
    // The dead worker's job comes back once its lock expires and a stalled check sees it.
    await until(() => receiver.received.length >= 2, 30_000, "the delivery after the restart");
    await until(
      async () => (await pool.query(`SELECT status FROM webhook_delivery WHERE event_id = $1`, [eventId])).rows[0]?.status === "DELIVERED",
      10_000,
      "the delivery recorded as DELIVERED",
    );

    // Every attempt is the same event, same webhook-id, signed with the registration's secret.
    for (const r of receiver.received) {
      expect(r.headers["webhook-id"]).toBe(eventId);
      expect(JSON.parse(r.body)).toMatchObject({ id: eventId, projectId: project.projectId });
      const timestamp = new Date(Number(r.headers["webhook-timestamp"]) * 1000);
      expect(r.headers["webhook-signature"]).toBe(signDelivery({ secret, msgId: eventId, timestamp, body: r.body })["webhook-signature"]);
    }
    const stats = await pool.query<{ response_status: number }>(`SELECT response_status FROM event_callback_stat WHERE event_callback_id = $1`, [registration.id]);
    expect(stats.rows.map((r) => r.response_status)).toContain(200);
  });
});
