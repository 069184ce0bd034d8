import { createEventCallbackRepository, type SqlPool } from "@relay/db";
import { createProjectFixture, testKek } from "@relay/testing";
import { generateWebhookSecret, sealWebhookSecret } from "@relay/webhooks";
import { randomBytes } from "node:crypto";
import { holdingReceiver, insertStatusChangeEvent, ownBackends, testWebhookWorker, until, type OwnBackends } from "./support";

/**
 * docs/operations.md, graceful shutdown and start-up: a webhook worker takes work only once its
 * start-up is complete (`run()`), and a stop takes no new work at once, whatever the outbox
 * dispatcher is waiting for.
 */
describe("webhook worker: when it takes work and when it stops", () => {
  const keyring = { activeKeyId: "k1", keys: new Map([["k1", randomBytes(32)]]) };
  let b: OwnBackends;
  let receiver: Awaited<ReturnType<typeof holdingReceiver>>;

  beforeAll(async () => {
    b = await ownBackends("webhook-start-close", 4);
    receiver = await holdingReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await b?.close();
  });

  const statusOf = async (eventId: string) =>
    (await b.pool.query<{ status: string }>(`SELECT status FROM webhook_delivery WHERE event_id = $1`, [eventId])).rows[0]?.status ?? "none";

  it("with autorun off, dispatches and delivers nothing until run()", async () => {
    const project = await createProjectFixture(b.db, testKek());
    await createEventCallbackRepository({ sql: b.pool, db: b.db }).create({
      projectId: project.projectId,
      callbackUrl: receiver.url,
      eventType: "TransactionStatusChange",
      sealSecret: (id) => sealWebhookSecret(keyring, id, generateWebhookSecret()),
    });
    const eventId = await insertStatusChangeEvent(b.pool, project);
    const worker = testWebhookWorker(b, keyring, 2, { autorun: false });
    try {
      await worker.ready();
      await new Promise((r) => setTimeout(r, 1000));
      // Not even a delivery row: the dispatcher has not claimed the event.
      expect(await statusOf(eventId)).toBe("none");
      expect(receiver.received).toHaveLength(0);
      worker.run();
      await until(() => receiver.received.length === 1, 15_000, "the delivery attempt after run()");
      expect(receiver.received[0]!.headers["webhook-id"]).toBe(eventId);
    } finally {
      receiver.release();
      await worker.close({ graceMs: 0 });
    }
  });

  it("stops taking deliveries at once and returns within the grace period while the dispatcher's claim hangs (Postgres frozen)", async () => {
    let claims = 0;
    // The pool, except that the outbox claim never answers, as on a frozen Postgres.
    const frozenClaims: SqlPool = {
      query: ((config: unknown, values?: unknown) => {
        if ((config as { name?: string }).name === "eventDispatch.claim") {
          claims += 1;
          return new Promise(() => undefined);
        }
        return (b.pool.query as (c: unknown, v?: unknown) => Promise<unknown>)(config, values);
      }) as SqlPool["query"],
      connect: b.pool.connect.bind(b.pool) as SqlPool["connect"],
    };
    const worker = testWebhookWorker(b, keyring, 2, { sql: frozenClaims });
    await worker.ready();
    await until(() => claims === 1, 10_000, "the dispatcher's first claim");
    const closing = worker.close({ graceMs: 500 });
    // BullMQ's close() has begun on every worker: no new job is taken from here on.
    expect(worker.workers.every((w) => w.closing !== undefined)).toBe(true);
    await expect(closing).resolves.toEqual({ handedBack: 0 });
  });
});
