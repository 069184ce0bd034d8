import { createLogger } from "@relay/core";
import { createDatabase, createEventCallbackRepository, createPool, type Database } from "@relay/db";
import { createRedis, type Redis } from "@relay/queue";
import { createProjectFixture, createTestDatabase, testKek, testQueuePrefix, type TestDatabase } from "@relay/testing";
import { generateWebhookSecret, sealPreviousWebhookSecret, sealWebhookSecret } from "@relay/webhooks";
import { createWebhookWorker } from "../src/worker";
import { closeTestBackends, until } from "./support";

type Pool = ReturnType<typeof createPool>;

/** docs/webhooks.md, "Rotating a secret": a retired secret is erased once its grace period is over. */
describe("the webhook worker's schedule", () => {
  const keyring = { activeKeyId: "k1", keys: new Map([["k1", Buffer.alloc(32, 9)]]) };
  const prefix = testQueuePrefix("webhook-retired");
  let database: TestDatabase;
  let pool: Pool;
  let db: Database;
  let redis: Redis;

  beforeAll(async () => {
    database = await createTestDatabase({ migrate: true });
    pool = createPool({ url: database.url, poolSize: 4 });
    db = createDatabase({ pool });
    redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "worker");
  });
  afterAll(() => closeTestBackends({ redis, prefix, db, pool, database }));

  it("erases a retired secret whose grace period has ended, and keeps one whose grace period runs", async () => {
    const project = await createProjectFixture(db, testKek(), { wallets: 0 });
    const callbacks = createEventCallbackRepository({ sql: pool, db });
    const register = () =>
      callbacks.create({
        projectId: project.projectId,
        callbackUrl: "https://receiver.example/hook",
        eventType: "TransactionStatusChange",
        sealSecret: (id) => sealWebhookSecret(keyring, id, generateWebhookSecret()),
      });
    const rotate = (id: string, expiresAt: Date) =>
      callbacks.rotateSecret(id, () => ({
        encryptedSecret: sealWebhookSecret(keyring, id, generateWebhookSecret()),
        previous: { encryptedSecret: sealPreviousWebhookSecret(keyring, id, generateWebhookSecret(), expiresAt), expiresAt },
      }));
    const [ended, running] = [await register(), await register()];
    await rotate(ended.id, new Date(Date.now() - 1000));
    await rotate(running.id, new Date(Date.now() + 3_600_000));
    const previousOf = async (id: string) =>
      (await pool.query<{ p: string | null }>(`SELECT previous_encrypted_secret AS p FROM event_callback WHERE id = $1`, [id])).rows[0]!.p;

    const worker = createWebhookWorker({
      db,
      sql: pool,
      redis,
      logger: createLogger({ name: "test", level: "silent" }),
      keyring,
      queuePrefix: prefix,
      concurrency: 1,
      allowPrivateNetworks: true,
      retrySchedule: "200ms",
      connectTimeoutMs: 1000,
      totalTimeoutMs: 2000,
    });
    try {
      await worker.ready();
      await worker.schedule();
      await until(async () => (await previousOf(ended.id)) === null, 10_000, "the ended grace period's secret erased");
    } finally {
      await worker.close();
    }
    expect(await previousOf(running.id)).not.toBeNull();
    const row = (await pool.query(`SELECT previous_secret_expires_at AS e FROM event_callback WHERE id = $1`, [ended.id])).rows[0];
    expect(row).toEqual({ e: null });
  });
});
