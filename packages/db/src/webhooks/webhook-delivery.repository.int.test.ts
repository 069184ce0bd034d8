import { randomUUID } from "node:crypto";
import { createFixture, newTransaction, type Fixture } from "../transactions/test-fixtures";
import { register, testKek, webhookTestContext, type WebhookTestContext } from "./test-fixtures";
import type { EventCallbackRecord, WebhookDeliveryRecord } from "./webhook-records";
import { createWebhookDeliveryRepository } from "./webhook-delivery.repository";

let ctx: WebhookTestContext;
const kek = testKek();
let fixture: Fixture;
let registration: EventCallbackRecord;

beforeAll(async () => {
  ctx = await webhookTestContext();
});

afterAll(() => ctx.close());

beforeEach(async () => {
  await ctx.drain();
  fixture = await createFixture(ctx.pool);
  registration = await register(ctx, kek, { projectId: fixture.projectId, eventType: "TransactionStatusChange" });
});

/** A transaction taken PENDING → SUBMITTED → CONFIRMED: its three deliveries to `registration`, oldest first. */
async function threeStatuses(): Promise<{ transactionId: string; deliveries: WebhookDeliveryRecord[] }> {
  const input = newTransaction(fixture);
  await ctx.transactions.create(input);
  await ctx.transactions.move(fixture.projectId, input.id, { from: "PENDING", to: "SUBMITTED", set: { hash: "0x01" } });
  await ctx.transactions.move(fixture.projectId, input.id, { from: "SUBMITTED", to: "CONFIRMED", set: { blockNumber: 7n } });
  const deliveries = (await ctx.drain()).filter((d) => d.eventCallbackId === registration.id && d.subject === input.id);
  expect(deliveries).toHaveLength(3);
  return { transactionId: input.id, deliveries };
}

async function oneDelivery(): Promise<WebhookDeliveryRecord> {
  const { deliveries } = await threeStatuses();
  return deliveries[0] as WebhookDeliveryRecord;
}

async function statsOf(deliveryId: string) {
  const result = await ctx.pool.query(
    `SELECT event_callback_id AS "eventCallbackId", data, response_status AS "responseStatus", created_at AS "createdAt"
       FROM event_callback_stat WHERE delivery_id = $1 ORDER BY id`,
    [deliveryId],
  );
  return result.rows;
}

describe("findForDelivery", () => {
  test("returns the delivery, its event's payload and the registration with its sealed secret", async () => {
    const delivery = await oneDelivery();
    const stored = await ctx.callbacks.findWithSecret(registration.id);

    const found = await ctx.deliveries.findForDelivery(delivery.id);

    expect(found).toEqual({
      delivery,
      event: {
        id: delivery.eventId,
        eventType: "TransactionStatusChange",
        projectId: fixture.projectId,
        createdAt: delivery.createdAt,
        payload: expect.objectContaining({ id: delivery.eventId, eventType: "TransactionStatusChange", projectId: fixture.projectId }),
      },
      registration: stored,
      heldBack: false,
      heldBackUntil: null,
    });
    expect(found?.registration.encryptedSecret).toMatch(/^v1\./);
    expect(await ctx.deliveries.findForDelivery(randomUUID())).toBeNull();
  });
});

describe("findForDelivery: heldBack", () => {
  test("holds a delivery back while an older one of the same transaction to the same registration is PENDING", async () => {
    const { deliveries } = await threeStatuses();
    const [pending, submitted, confirmed] = deliveries as [WebhookDeliveryRecord, WebhookDeliveryRecord, WebhookDeliveryRecord];
    const older = async (d: WebhookDeliveryRecord) => (await ctx.deliveries.findForDelivery(d.id))?.heldBack;

    expect([await older(pending), await older(submitted), await older(confirmed)]).toEqual([false, true, true]);

    await ctx.deliveries.markDelivered(pending.id);
    expect([await older(submitted), await older(confirmed)]).toEqual([false, true]);

    // A delivery that was given up on does not hold later ones back.
    await ctx.deliveries.markFailed(submitted.id);
    expect(await older(confirmed)).toBe(false);
  });

  test("heldBackUntil is the next attempt of the oldest delivery holding it back, not a middle one's", async () => {
    const { deliveries } = await threeStatuses();
    const [pending, submitted, confirmed] = deliveries as [WebhookDeliveryRecord, WebhookDeliveryRecord, WebhookDeliveryRecord];
    const inTwoHours = new Date(Date.now() + 2 * 60 * 60_000);
    // As in production: the first fails and waits for its retry; the second, held back by it, was
    // never tried and keeps its dispatch time (past).
    await ctx.deliveries.recordAttempt(pending.id, { responseStatus: 500, data: { durationMs: 1 }, next: { status: "PENDING", nextAttemptAt: inTwoHours } });
    const until = async (d: WebhookDeliveryRecord) => (await ctx.deliveries.findForDelivery(d.id))?.heldBackUntil;

    expect([await until(pending), await until(submitted), await until(confirmed)]).toEqual([null, inTwoHours, inTwoHours]);
  });

  test("only the same transaction's deliveries to the same registration hold a delivery back", async () => {
    const second = await register(ctx, kek, { projectId: fixture.projectId, eventType: "TransactionStatusChange" });
    const first = await threeStatuses();
    await threeStatuses();
    const toSecond = await ctx.pool.query<{ id: string }>(
      `SELECT id FROM webhook_delivery WHERE event_callback_id = $1 AND subject = $2 ORDER BY created_at, event_id`,
      [second.id, first.transactionId],
    );
    const [oldest, middle, newestId] = toSecond.rows.map((r) => r.id) as [string, string, string];
    const heldBack = async (id: string) => (await ctx.deliveries.findForDelivery(id))?.heldBack;
    expect(await heldBack(newestId)).toBe(true);

    await ctx.deliveries.markDelivered(oldest);
    await ctx.deliveries.markDelivered(middle);

    // The same transaction's deliveries to the first registration, and the other transaction's, are all still PENDING.
    expect(await heldBack(newestId)).toBe(false);
    // A delivery without a subject (WalletBalanceLow) is never held back.
    const confirmedToFirst = first.deliveries[2] as WebhookDeliveryRecord;
    expect(await heldBack(confirmedToFirst.id)).toBe(true);
    await ctx.pool.query(`UPDATE webhook_delivery SET subject = NULL WHERE id = $1`, [confirmedToFirst.id]);
    expect(await heldBack(confirmedToFirst.id)).toBe(false);
  });
});

describe("recordAttempt", () => {
  test("writes one stats entry per attempt and moves the delivery, in one statement", async () => {
    const delivery = await oneDelivery();
    const retryAt = new Date(Date.now() + 30_000);

    const failed = await ctx.deliveries.recordAttempt(delivery.id, {
      responseStatus: 0,
      data: { durationMs: 5000, error: "timed out" },
      next: { status: "PENDING", nextAttemptAt: retryAt },
    });
    expect(failed).toEqual({ applied: true, delivery: { ...delivery, attempts: 1, nextAttemptAt: retryAt } });

    const delivered = await ctx.deliveries.recordAttempt(delivery.id, {
      responseStatus: 204,
      data: { durationMs: 12 },
      next: { status: "DELIVERED" },
    });
    expect(delivered).toEqual({
      applied: true,
      delivery: { ...delivery, attempts: 2, status: "DELIVERED", nextAttemptAt: null, deliveredAt: expect.any(Date) },
    });

    expect(await statsOf(delivery.id)).toEqual([
      {
        eventCallbackId: registration.id,
        responseStatus: 0,
        data: { eventId: delivery.eventId, deliveryId: delivery.id, attempt: 1, durationMs: 5000, error: "timed out" },
        createdAt: expect.any(Date),
      },
      {
        eventCallbackId: registration.id,
        responseStatus: 204,
        data: { eventId: delivery.eventId, deliveryId: delivery.id, attempt: 2, durationMs: 12 },
        createdAt: delivered?.delivery.deliveredAt,
      },
    ]);
  });

  test("a late attempt on a delivery that is no longer PENDING is recorded but changes nothing else", async () => {
    const delivery = await oneDelivery();
    await ctx.deliveries.recordAttempt(delivery.id, { responseStatus: 200, data: { durationMs: 3 }, next: { status: "DELIVERED" } });

    const late = await ctx.deliveries.recordAttempt(delivery.id, {
      responseStatus: 500,
      data: { durationMs: 3 },
      next: { status: "PENDING", nextAttemptAt: new Date(Date.now() + 5000) },
    });

    expect(late).toEqual({ applied: false, delivery: expect.objectContaining({ status: "DELIVERED", attempts: 2, nextAttemptAt: null }) });
    expect((await statsOf(delivery.id)).map((s) => s.responseStatus)).toEqual([200, 500]);
  });

  test("the user-supplied data cannot overwrite the ids and the attempt number", async () => {
    const delivery = await oneDelivery();
    await ctx.deliveries.recordAttempt(delivery.id, {
      responseStatus: 502,
      data: { durationMs: 1, attempt: 99, eventId: "x" } as unknown as { durationMs: number },
      next: { status: "FAILED" },
    });
    expect((await statsOf(delivery.id))[0]?.data).toEqual({ eventId: delivery.eventId, deliveryId: delivery.id, attempt: 1, durationMs: 1 });
  });

  test("returns null for an unknown delivery and writes nothing", async () => {
    const id = randomUUID();
    expect(await ctx.deliveries.recordAttempt(id, { responseStatus: 0, data: { durationMs: 0 }, next: { status: "FAILED" } })).toBeNull();
    expect(await statsOf(id)).toEqual([]);
  });
});

describe("coalesced calls (the webhook worker's many concurrent jobs)", () => {
  test("concurrent reads and attempts share statements and each call gets its own answer, a delivery twice in one batch counted twice", async () => {
    const coalesced = createWebhookDeliveryRepository(ctx.pool, { coalesce: { maxBatchSize: 50, maxInFlight: 1 } });
    const { deliveries } = await threeStatuses();
    const [a, b, c] = deliveries as [WebhookDeliveryRecord, WebhookDeliveryRecord, WebhookDeliveryRecord];
    const unknown = randomUUID();

    const found = await Promise.all([a.id, unknown, c.id, b.id].map((id) => coalesced.findForDelivery(id)));
    expect(found.map((f) => f && [f.delivery.id, f.heldBack])).toEqual([[a.id, false], null, [c.id, true], [b.id, true]]);

    const recorded = await Promise.all([
      coalesced.recordAttempt(a.id, { responseStatus: 200, data: { durationMs: 1 }, next: { status: "DELIVERED" } }),
      coalesced.recordAttempt(b.id, { responseStatus: 500, data: { durationMs: 2 }, next: { status: "PENDING", nextAttemptAt: new Date(Date.now() + 1000) } }),
      coalesced.recordAttempt(b.id, { responseStatus: 200, data: { durationMs: 3 }, next: { status: "DELIVERED" } }),
      coalesced.recordAttempt(unknown, { responseStatus: 0, data: { durationMs: 0 }, next: { status: "FAILED" } }),
    ]);
    expect(recorded.map((r) => r && [r.delivery.id, r.delivery.status, r.delivery.attempts, r.applied])).toEqual([
      [a.id, "DELIVERED", 1, true],
      [b.id, "PENDING", 1, true],
      [b.id, "DELIVERED", 2, true],
      null,
    ]);
    expect((await statsOf(b.id)).map((s) => [s.responseStatus, s.data.attempt])).toEqual([
      [500, 1],
      [200, 2],
    ]);
    expect((await coalesced.findForDelivery(c.id))?.heldBack).toBe(false);
  });
});

describe("markDelivered, markFailed, abandon", () => {
  test("move a PENDING delivery once and nothing else", async () => {
    const { deliveries } = await threeStatuses();
    const [a, b, c] = deliveries.map((d) => d.id) as [string, string, string];

    expect(await ctx.deliveries.markDelivered(a)).toBe(true);
    expect(await ctx.deliveries.markFailed(b)).toBe(true);
    expect(await ctx.deliveries.abandon(c)).toBe(true);
    for (const id of [a, b, c]) {
      expect(await ctx.deliveries.markDelivered(id)).toBe(false);
      expect(await ctx.deliveries.abandon(id)).toBe(false);
    }
    const rows = await Promise.all([a, b, c].map((id) => ctx.deliveries.findForDelivery(id)));
    expect(rows.map((r) => [r?.delivery.status, r?.delivery.nextAttemptAt, r?.delivery.deliveredAt === null])).toEqual([
      ["DELIVERED", null, false],
      ["FAILED", null, true],
      ["ABANDONED", null, true],
    ]);
  });
});

describe("redeliver", () => {
  test("makes a DELIVERED or FAILED delivery PENDING again, due now, its attempts counted anew; a PENDING one due now; nothing of another registration or project", async () => {
    const { deliveries } = await threeStatuses();
    const [delivered, failed, pending] = deliveries as [WebhookDeliveryRecord, WebhookDeliveryRecord, WebhookDeliveryRecord];
    await ctx.deliveries.recordAttempt(delivered.id, { responseStatus: 200, data: { durationMs: 1 }, next: { status: "DELIVERED" } });
    await ctx.deliveries.recordAttempt(failed.id, { responseStatus: 500, data: { durationMs: 1 }, next: { status: "FAILED" } });
    await ctx.deliveries.recordAttempt(pending.id, { responseStatus: 500, data: { durationMs: 1 }, next: { status: "PENDING", nextAttemptAt: new Date(Date.now() + 3_600_000) } });
    const other = await register(ctx, kek, { projectId: fixture.projectId, eventType: "TransactionStatusChange" });

    // Wrong registration, wrong project, unknown delivery: nothing found, nothing changed.
    expect(await ctx.deliveries.redeliver(fixture.projectId, other.id, failed.id)).toEqual({ outcome: "not-found" });
    expect(await ctx.deliveries.redeliver(randomUUID(), registration.id, failed.id)).toEqual({ outcome: "not-found" });
    expect(await ctx.deliveries.redeliver(fixture.projectId, registration.id, randomUUID())).toEqual({ outcome: "not-found" });
    expect((await ctx.deliveries.findForDelivery(failed.id))?.delivery.status).toBe("FAILED");

    const before = Date.now();
    for (const d of [delivered, failed, pending]) {
      expect(await ctx.deliveries.redeliver(fixture.projectId, registration.id, d.id)).toMatchObject({ outcome: "redelivering", eventId: d.eventId });
    }
    const rows = await Promise.all([delivered, failed, pending].map(async (d) => (await ctx.deliveries.findForDelivery(d.id))!.delivery));
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([
      ["PENDING", 0],
      ["PENDING", 0],
      ["PENDING", 1],
    ]);
    for (const r of rows) expect(r.nextAttemptAt!.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    for (const r of rows) expect(r.nextAttemptAt!.getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  test("leaves the deliveries of a disabled registration as they are", async () => {
    const delivery = await oneDelivery();
    await ctx.deliveries.recordAttempt(delivery.id, { responseStatus: 500, data: { durationMs: 1 }, next: { status: "FAILED" } });
    await ctx.callbacks.disable(registration.id, "410 from the receiver");
    expect(await ctx.deliveries.redeliver(fixture.projectId, registration.id, delivery.id)).toEqual({ outcome: "disabled", previousStatus: "FAILED" });
    expect((await ctx.deliveries.findForDelivery(delivery.id))?.delivery.status).toBe("FAILED");
  });
});

describe("findDue", () => {
  test("lists PENDING deliveries whose attempt is due, earliest first", async () => {
    const { deliveries } = await threeStatuses();
    const [a, b, c] = deliveries as [WebhookDeliveryRecord, WebhookDeliveryRecord, WebhookDeliveryRecord];
    const later = new Date(Date.now() + 60 * 60_000);
    await ctx.deliveries.recordAttempt(a.id, { responseStatus: 500, data: { durationMs: 1 }, next: { status: "PENDING", nextAttemptAt: later } });
    await ctx.deliveries.markDelivered(c.id);

    const due = await ctx.deliveries.findDue({ dueBefore: new Date(Date.now() + 1000), limit: 100 });
    expect(due.filter((d) => deliveries.some((x) => x.id === d.id)).map((d) => d.id)).toEqual([b.id]);
    const dueLater = await ctx.deliveries.findDue({ dueBefore: new Date(later.getTime() + 1000), limit: 100 });
    expect(dueLater.filter((d) => deliveries.some((x) => x.id === d.id)).map((d) => d.id)).toEqual([b.id, a.id]);
  });
});
