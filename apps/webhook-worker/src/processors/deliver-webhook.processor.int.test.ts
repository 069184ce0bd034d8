import { randomBytes, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createLogger } from "@relay/core";
import { createEventCallbackRepository, createEventDispatchRepository, createWebhookDeliveryRepository, type WebhookDeliveryRecord } from "@relay/db";
import { RunAgain, type Job } from "@relay/queue";
import { createProjectFixture, testKek } from "@relay/testing";
import { createSafeHttpClient, sealWebhookSecret } from "@relay/webhooks";
import { ownBackends, type OwnBackends } from "../../test/support";
import { createDeliverWebhookProcessor } from "./deliver-webhook.processor";

const keyring = { activeKeyId: "current", keys: new Map([["current", randomBytes(32)]]) };
/** A keyring the worker no longer has: what an operator dropping a key from WEBHOOK_SECRET_KEYS_PREVIOUS leaves. */
const droppedKeyring = { activeKeyId: "dropped", keys: new Map([["dropped", randomBytes(32)]]) };
const context = { job: {} as Job, logger: createLogger({ name: "deliver-processor-test", level: "silent" }) };
const SCHEDULE = [60_000, 60_000];

describe("deliverWebhook processor", () => {
  let b: OwnBackends;
  // Nothing here reaches a receiver: the registrations point at an address nobody listens on.
  const http = createSafeHttpClient({ allowPrivateNetworks: true, connectTimeoutMs: 500, totalTimeoutMs: 1000 });
  let now = 0;

  beforeAll(async () => {
    b = await ownBackends("deliver-processor", 2);
  });
  afterAll(async () => {
    http.close();
    await b?.close();
  });

  const processor = (retryScheduleMs: number[] = SCHEDULE) =>
    createDeliverWebhookProcessor({
      deliveries: createWebhookDeliveryRepository(b.pool),
      callbacks: createEventCallbackRepository({ sql: b.pool, db: b.db }),
      http,
      keyring,
      retryScheduleMs,
      now: () => now,
    });

  /** A registration whose secret was sealed with `sealedWith`, and two status changes of one transaction dispatched to it: [older, younger]. */
  async function twoEventsOfOneTransaction(
    sealedWith = keyring,
    callbackUrl = "http://127.0.0.1:9/hook",
  ): Promise<[WebhookDeliveryRecord, WebhookDeliveryRecord]> {
    const project = await createProjectFixture(b.db, testKek(), { wallets: 0 });
    const registration = await createEventCallbackRepository({ sql: b.pool, db: b.db }).create({
      projectId: project.projectId,
      eventType: "TransactionStatusChange",
      callbackUrl,
      // A secret signing works with (32 bytes): sends carry the Standard Webhooks headers.
      sealSecret: (id) => sealWebhookSecret(sealedWith, id, `whsec_${randomBytes(32).toString("base64")}`),
    });
    const subject = randomUUID();
    for (const status of ["PENDING", "SUBMITTED"]) {
      await b.pool.query(
        `INSERT INTO event (id, project_id, event_type, subject, payload, created_at) VALUES (gen_random_uuid(), $1, 'TransactionStatusChange', $2, $3, now())`,
        [project.projectId, subject, JSON.stringify({ status })],
      );
    }
    const claimed = (await createEventDispatchRepository(b.pool).claimUndispatched(10)).filter((d) => d.eventCallbackId === registration.id);
    expect(claimed).toHaveLength(2);
    return claimed as [WebhookDeliveryRecord, WebhookDeliveryRecord];
  }

  const statsOf = async (deliveryId: string) =>
    (await b.pool.query(`SELECT response_status AS "responseStatus", data FROM event_callback_stat WHERE delivery_id = $1 ORDER BY id`, [deliveryId])).rows;

  test("a delivery held back by an older one waiting for its retry waits until just after that retry, at most a minute", async () => {
    const [older, younger] = await twoEventsOfOneTransaction();
    now = Date.now() + 1000; // both are due
    const deliveries = createWebhookDeliveryRepository(b.pool);

    // The older one is being tried (due now): look again in 250 ms.
    expect(await processor()({ v: 1, deliveryId: younger.id }, context)).toEqual(new RunAgain(250));

    await deliveries.recordAttempt(older.id, { responseStatus: 500, data: { durationMs: 1 }, next: { status: "PENDING", nextAttemptAt: new Date(now + 10_000) } });
    expect(await processor()({ v: 1, deliveryId: younger.id }, context)).toEqual(new RunAgain(10_250));

    await deliveries.recordAttempt(older.id, { responseStatus: 500, data: { durationMs: 1 }, next: { status: "PENDING", nextAttemptAt: new Date(now + 3_600_000) } });
    expect(await processor()({ v: 1, deliveryId: younger.id }, context)).toEqual(new RunAgain(60_000));
    expect(await statsOf(younger.id)).toEqual([]);
  });

  test("a registration whose secret does not open: nothing is sent, each attempt is a status-0 stats entry on the schedule, then FAILED", async () => {
    const [older, younger] = await twoEventsOfOneTransaction(droppedKeyring);
    now = Date.now() + 1000; // both are due
    const deliveries = createWebhookDeliveryRepository(b.pool);

    const first = await processor()({ v: 1, deliveryId: older.id }, context);
    expect(first).toBeInstanceOf(RunAgain);
    expect((first as RunAgain).delayMs).toBeGreaterThanOrEqual(SCHEDULE[0]! * 0.8);
    const afterFirst = await deliveries.findForDelivery(older.id);
    expect(afterFirst?.delivery).toMatchObject({ status: "PENDING", attempts: 1 });

    now = afterFirst!.delivery.nextAttemptAt!.getTime();
    await processor()({ v: 1, deliveryId: older.id }, context);
    now += 2 * SCHEDULE[1]!;
    expect(await processor()({ v: 1, deliveryId: older.id }, context)).toEqual({ status: "FAILED" });

    const stats = await statsOf(older.id);
    expect(stats.map((s) => s.responseStatus)).toEqual([0, 0, 0]);
    expect(stats[0].data.error).toMatch(/^unsigned: the relay could not open this registration's signing secret/);
    // Nothing about the key it needs goes to the project.
    expect(JSON.stringify(stats)).not.toMatch(/dropped|WEBHOOK_SECRET/);
    // The transaction's later event is no longer held back by it.
    expect((await deliveries.findForDelivery(younger.id))?.heldBack).toBe(false);
  });

  test("each retry waits its own entry of the schedule and is signed at the time it is sent, not the event's", async () => {
    // A receiver that answers 500 and keeps the headers of every request.
    const received: Record<string, string | string[] | undefined>[] = [];
    const receiver = createServer((req, res) => {
      received.push(req.headers);
      req.resume();
      req.on("end", () => res.writeHead(500).end());
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    try {
      const [older] = await twoEventsOfOneTransaction(keyring, `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`);
      const schedule = [60_000, 600_000, 6_000_000];
      const deliver = processor(schedule);
      now = Date.now() + 3_600_000; // an hour after the event was written: a receiver refuses a 5-minute-old timestamp
      const first = (await deliver({ v: 1, deliveryId: older.id }, context)) as RunAgain;
      expect(first.delayMs).toBeGreaterThanOrEqual(schedule[0]! * 0.8);
      expect(first.delayMs).toBeLessThanOrEqual(schedule[0]! * 1.2);
      const firstSentAt = now;
      now += first.delayMs;
      const second = (await deliver({ v: 1, deliveryId: older.id }, context)) as RunAgain;
      expect(second.delayMs).toBeGreaterThanOrEqual(schedule[1]! * 0.8);
      expect(second.delayMs).toBeLessThanOrEqual(schedule[1]! * 1.2);
      expect(received.map((h) => h["webhook-timestamp"])).toEqual([String(Math.floor(firstSentAt / 1000)), String(Math.floor(now / 1000))]);
      expect(new Set(received.map((h) => h["webhook-id"])).size).toBe(1);
    } finally {
      receiver.close();
    }
  });

  test("a 410 whose stats entry cannot be written leaves the registration active, and its retry disables it with the 410 recorded", async () => {
    const receiver = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(410).end());
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    try {
      const [older, younger] = await twoEventsOfOneTransaction(keyring, `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`);
      // The pool fails the first statement that records an attempt, on a connection of its own or
      // not (as Postgres does when it goes away at that moment); everything else goes through.
      let failures = 1;
      const failOnce = <Q extends (...args: never[]) => unknown>(query: Q): Q =>
        ((config: unknown, ...rest: never[]) => {
          const text = typeof config === "string" ? config : (config as { text: string }).text;
          if (failures > 0 && text.includes("INSERT INTO event_callback_stat")) {
            failures--;
            return Promise.reject(new Error("connection lost"));
          }
          return query(config as never, ...rest);
        }) as unknown as Q;
      const flaky = {
        query: failOnce(b.pool.query.bind(b.pool)),
        connect: async () => {
          const client = await b.pool.connect();
          client.query = failOnce(client.query.bind(client));
          return client;
        },
      } as unknown as typeof b.pool;
      const deliver = createDeliverWebhookProcessor({
        deliveries: createWebhookDeliveryRepository(flaky),
        callbacks: createEventCallbackRepository({ sql: flaky, db: b.db }),
        http,
        keyring,
        retryScheduleMs: SCHEDULE,
        now: () => now,
      });
      now = Date.now() + 1000;

      await expect(deliver({ v: 1, deliveryId: older.id }, context)).rejects.toThrow("connection lost");
      const registrationOf = async () =>
        (await b.pool.query(`SELECT disabled_at AS "disabledAt" FROM event_callback WHERE id = $1`, [older.eventCallbackId])).rows[0] as { disabledAt: Date | null };
      expect((await registrationOf()).disabledAt).toBeNull();

      // The job's retry sends again, hears 410 again, and this time both are written.
      expect(await deliver({ v: 1, deliveryId: older.id }, context)).toEqual({ status: "ABANDONED" });
      expect((await registrationOf()).disabledAt).not.toBeNull();
      expect((await statsOf(older.id)).map((s) => s.responseStatus)).toEqual([410]);
      const statusOf = async (id: string) => (await b.pool.query(`SELECT status FROM webhook_delivery WHERE id = $1`, [id])).rows[0]?.status;
      expect(await statusOf(older.id)).toBe("ABANDONED");
      expect(await statusOf(younger.id)).toBe("ABANDONED");
    } finally {
      receiver.close();
    }
  });

  test("a 2xx receiver that trickles its body a byte a second is DELIVERED as it answers, with the time of its answer, and its connection closed", async () => {
    let cutBeforeItsEnd!: (cut: boolean) => void;
    const closed = new Promise<boolean>((r) => (cutBeforeItsEnd = r));
    const receiver = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-length": "60" });
        res.write("x"); // the status line and headers go out with the first byte
        const drip = setInterval(() => res.write("x"), 1000);
        res.on("close", () => {
          clearInterval(drip);
          cutBeforeItsEnd(!res.writableFinished);
        });
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    // The worker's defaults: total time-out 10 s.
    const patient = createSafeHttpClient({ allowPrivateNetworks: true });
    try {
      const [older] = await twoEventsOfOneTransaction(keyring, `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`);
      const deliver = createDeliverWebhookProcessor({
        deliveries: createWebhookDeliveryRepository(b.pool),
        callbacks: createEventCallbackRepository({ sql: b.pool, db: b.db }),
        http: patient,
        keyring,
        retryScheduleMs: SCHEDULE,
        now: () => now,
      });
      now = Date.now() + 1000;
      const started = performance.now();
      expect(await deliver({ v: 1, deliveryId: older.id }, context)).toEqual({ status: "DELIVERED" });
      expect(performance.now() - started).toBeLessThan(5_000); // well before the 10 s total time-out
      const [stat] = await statsOf(older.id);
      expect(stat.responseStatus).toBe(200);
      expect(stat.data.error).toBeUndefined();
      expect(stat.data.durationMs).toBeLessThan(1_000); // when it answered, not when reading stopped
      expect(await closed).toBe(true); // by the worker, before the body's end
    } finally {
      patient.close();
      receiver.close();
    }
  });
});
