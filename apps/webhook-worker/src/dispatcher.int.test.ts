import { randomBytes } from "node:crypto";
import { createLogger } from "@relay/core";
import { createDatabase, createEventCallbackRepository, createEventDispatchRepository, createPool } from "@relay/db";
import { createProducer, createRedis, jobIdOf } from "@relay/queue";
import { createProjectFixture, createTestDatabase, deleteRedisKeys, testKek, testQueuePrefix, type TestDatabase } from "@relay/testing";
import { sealWebhookSecret } from "@relay/webhooks";
import { startDispatcher } from "./dispatcher";

const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const keyring = { activeKeyId: "t", keys: new Map([["t", randomBytes(32)]]) };

describe("dispatcher", () => {
  // Its own database: a dispatcher claims every undispatched event it can see.
  let database: TestDatabase;
  let pool: ReturnType<typeof createPool>;
  const redis = createRedis(redisUrl, "worker");
  const prefix = testQueuePrefix("dispatcher");
  const producer = createProducer({ connection: redis, prefix });
  const logger = createLogger({ name: "test", level: "silent" });

  beforeAll(async () => {
    database = await createTestDatabase({ migrate: true });
    pool = createPool({ url: database.url, poolSize: 2 });
  });

  afterAll(async () => {
    await producer.close();
    await deleteRedisKeys(redis, prefix);
    await redis.quit();
    await pool.end();
    await database.drop();
  });

  test("enqueues one deliverWebhook job per delivery of every claimed event, over several full batches", async () => {
    const db = createDatabase({ pool });
    const project = await createProjectFixture(db, testKek(), { wallets: 0 });
    const callbacks = createEventCallbackRepository({ sql: pool, db });
    for (let i = 0; i < 2; i++) {
      await callbacks.create({
        projectId: project.projectId,
        eventType: "TransactionStatusChange",
        callbackUrl: `https://receiver-${i}.example/hook`,
        sealSecret: (id) => sealWebhookSecret(keyring, id, "whsec_dGVzdA=="),
      });
    }
    // 130 events, one transaction each: more than one batch of 50.
    await pool.query(
      `INSERT INTO event (id, project_id, event_type, subject, payload, created_at)
       SELECT gen_random_uuid(), $1::uuid, 'TransactionStatusChange', gen_random_uuid()::text, '{}'::jsonb, now()
         FROM generate_series(1, 130)`,
      [project.projectId],
    );

    const dispatcher = startDispatcher({ dispatch: createEventDispatchRepository(pool), producer, logger, batch: 50, idleMs: 10 });
    const queue = producer.queue("deliverWebhook");
    const deadline = Date.now() + 15_000;
    while ((await queue.count()) < 260 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await dispatcher.stop();

    const deliveries = (await pool.query<{ id: string }>(`SELECT id FROM webhook_delivery`)).rows.map((r) => r.id);
    const jobs = await queue.getJobs(["waiting", "delayed", "prioritized"]);
    expect(deliveries).toHaveLength(260);
    expect(jobs.map((j) => j.id).sort()).toEqual(deliveries.map((deliveryId) => jobIdOf("deliverWebhook", { v: 1, deliveryId })).sort());
    expect((await pool.query(`SELECT count(*)::int AS n FROM event WHERE dispatched_at IS NULL`)).rows[0].n).toBe(0);
  });

  test("follows a full batch at once even when its events made no delivery (no registration)", async () => {
    const db = createDatabase({ pool });
    const project = await createProjectFixture(db, testKek(), { wallets: 0 });
    await pool.query(
      `INSERT INTO event (id, project_id, event_type, subject, payload, created_at)
       SELECT gen_random_uuid(), $1::uuid, 'TransactionStatusChange', gen_random_uuid()::text, '{}'::jsonb, now()
         FROM generate_series(1, 120)`,
      [project.projectId],
    );
    const undispatched = async () => (await pool.query(`SELECT count(*)::int AS n FROM event WHERE dispatched_at IS NULL`)).rows[0].n as number;

    // Resting an hour after a batch that was not full: only a batch counted as full (40 events
    // locked, no delivery made) lets the loop go on and dispatch all three batches.
    const dispatcher = startDispatcher({ dispatch: createEventDispatchRepository(pool), producer, logger, batch: 40, idleMs: 3_600_000 });
    const deadline = Date.now() + 10_000;
    while ((await undispatched()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await dispatcher.stop();
    expect(await undispatched()).toBe(0);
  });
});
