import { randomBytes } from "node:crypto";
import { createLogger } from "@relay/core";
import { createEventCallbackRepository, createEventDispatchRepository, createWebhookDeliveryRepository } from "@relay/db";
import { createProducer, jobCatalog, jobIdOf, type Job } from "@relay/queue";
import { createProjectFixture, testKek } from "@relay/testing";
import { sealWebhookSecret } from "@relay/webhooks";
import { ownBackends, type OwnBackends } from "../../test/support";
import { createReconcileDeliveriesProcessor } from "./reconcile-deliveries.processor";

const keyring = { activeKeyId: "t", keys: new Map([["t", randomBytes(32)]]) };
const context = { job: {} as Job, logger: createLogger({ name: "reconcile-deliveries-test", level: "silent" }) };
const OVERDUE_AFTER_MS = 60_000;

describe("reconcileDeliveries processor", () => {
  // Its own database: the reconciler looks at every project's deliveries.
  let b: OwnBackends;
  let pool: OwnBackends["pool"];
  let producer: ReturnType<typeof createProducer>;

  beforeAll(async () => {
    b = await ownBackends("reconcile-deliveries", 2);
    pool = b.pool;
    producer = createProducer({ connection: b.redis, prefix: b.prefix });
  });
  afterAll(async () => {
    await producer?.close();
    await b?.close();
  });

  /** `n` PENDING deliveries to one registration, each due `overdueBy` ago (the i-th a second earlier still), without jobs. */
  async function deliveriesDue(projectId: string, callbackId: string, n: number, overdueBy: string): Promise<string[]> {
    await pool.query(
      `INSERT INTO event (id, project_id, event_type, subject, payload, created_at)
       SELECT gen_random_uuid(), $1::uuid, 'TransactionStatusChange', gen_random_uuid()::text, '{}'::jsonb, now()
         FROM generate_series(1, $2::int)`,
      [projectId, n],
    );
    const claimed = await createEventDispatchRepository(pool).claimUndispatched(n);
    const ids = claimed.filter((d) => d.eventCallbackId === callbackId).map((d) => d.id);
    for (const [i, id] of ids.entries()) {
      await pool.query(`UPDATE webhook_delivery SET next_attempt_at = now() - $2::interval - $3 * interval '1 second' WHERE id = $1`, [id, overdueBy, i]);
    }
    return ids;
  }

  const jobOf = (deliveryId: string) => producer.queue("deliverWebhook").getJob(jobIdOf("deliverWebhook", { v: 1, deliveryId }));

  test("reaches a delivery that lost its job behind more overdue ones with live jobs than a run checks", async () => {
    const db = b.db;
    const project = await createProjectFixture(db, testKek(), { wallets: 0 });
    const registration = await createEventCallbackRepository({ sql: pool, db }).create({
      projectId: project.projectId,
      eventType: "TransactionStatusChange",
      callbackUrl: "https://receiver.example/hook",
      sealSecret: (id) => sealWebhookSecret(keyring, id, "whsec_dGVzdA=="),
    });
    // Three overdue for two days whose jobs are alive (delayed), ahead of one overdue for a day without a job.
    const live = await deliveriesDue(project.projectId, registration.id, 3, "2 days");
    for (const deliveryId of live) {
      const payload = { v: 1 as const, deliveryId };
      await producer.queue("deliverWebhook").add("deliverWebhook", payload, { ...jobCatalog.deliverWebhook.options, jobId: jobIdOf("deliverWebhook", payload), delay: 600_000 });
    }
    const [lost] = await deliveriesDue(project.projectId, registration.id, 1, "1 day");

    // One processor, as in a worker: each run goes on where the one before stopped.
    const run = createReconcileDeliveriesProcessor({
      deliveries: createWebhookDeliveryRepository(pool),
      producer,
      overdueAfterMs: OVERDUE_AFTER_MS,
      batch: 2,
      now: Date.now,
    });
    const results = [];
    for (let runs = 0; runs < 5 && (await jobOf(lost!)) === undefined; runs++) results.push(await run({ v: 1 }, context));

    expect(await (await jobOf(lost!))?.getState()).toBe("waiting");
    for (const deliveryId of live) expect(await (await jobOf(deliveryId))?.getState()).toBe("delayed");
    expect(results).toEqual([
      { checked: 2, revived: 0 },
      { checked: 2, revived: 1 },
    ]);
  });
});
