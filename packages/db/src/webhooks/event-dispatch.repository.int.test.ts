import { randomUUID } from "node:crypto";
import { Client } from "pg";
import { createFixture, newTransaction, type Fixture } from "../transactions/test-fixtures";
import { register, testKek, webhookTestContext, type WebhookTestContext } from "./test-fixtures";
import type { WebhookDeliveryRecord } from "./webhook-records";

let ctx: WebhookTestContext;
const kek = testKek();

beforeAll(async () => {
  ctx = await webhookTestContext();
});

afterAll(() => ctx.close());

// Every test starts with nothing left to dispatch.
beforeEach(() => ctx.drain());

/** Creates `count` transactions, each with its PENDING status change event; returns their ids. */
async function transactions(fixture: Fixture, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const input = newTransaction(fixture);
    await ctx.transactions.create(input);
    ids.push(input.id);
  }
  return ids;
}

async function eventIds(projectId: string): Promise<string[]> {
  const result = await ctx.pool.query<{ id: string }>(`SELECT id FROM event WHERE project_id = $1 ORDER BY seq`, [projectId]);
  return result.rows.map((r) => r.id);
}

async function deliveriesOf(eventCallbackId: string): Promise<Array<{ eventId: string }>> {
  const result = await ctx.pool.query<{ eventId: string }>(
    `SELECT event_id AS "eventId" FROM webhook_delivery WHERE event_callback_id = $1 ORDER BY created_at, event_id`,
    [eventCallbackId],
  );
  return result.rows;
}

const pairKey = (d: WebhookDeliveryRecord) => `${d.eventId}/${d.eventCallbackId}`;

/** Claims, failing the test if the claim waits for another dispatcher's row locks. */
async function claimWithoutWaiting(limit: number): Promise<WebhookDeliveryRecord[]> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("claimUndispatched waited for another dispatcher's lock")), 5000);
  });
  try {
    return await Promise.race([ctx.dispatch.claimUndispatched(limit), waited]);
  } finally {
    clearTimeout(timer);
  }
}

test("concurrent callers never dispatch an event twice and create exactly one delivery per (event, registration)", async () => {
  const fixture = await createFixture(ctx.pool);
  const a = await register(ctx, kek, { projectId: fixture.projectId, eventType: "TransactionStatusChange" });
  const b = await register(ctx, kek, { projectId: fixture.projectId, eventType: "TransactionStatusChange" });
  await transactions(fixture, 120);
  const events = await eventIds(fixture.projectId);

  // Four dispatchers on four connections, small batches, until nothing is left.
  const callers = await Promise.all(
    Array.from({ length: 4 }, async () => {
      const got: WebhookDeliveryRecord[] = [];
      for (;;) {
        const batch = await ctx.dispatch.claimUndispatched(7);
        got.push(...batch);
        const left = await ctx.pool.query(`SELECT 1 FROM event WHERE dispatched_at IS NULL LIMIT 1`);
        if (left.rowCount === 0) return got;
      }
    }),
  );

  const returned = callers.flat();
  expect(new Set(returned.map(pairKey)).size).toBe(returned.length);
  expect(returned.map(pairKey).sort()).toEqual(events.flatMap((e) => [`${e}/${a.id}`, `${e}/${b.id}`]).sort());
  // All deliveries of one event come from the one caller that claimed it.
  const claimedBy = new Map<string, Set<number>>();
  callers.forEach((got, caller) => got.forEach((d) => claimedBy.set(d.eventId, (claimedBy.get(d.eventId) ?? new Set()).add(caller))));
  expect([...claimedBy.values()].every((set) => set.size === 1)).toBe(true);
  // And the table holds exactly those.
  expect((await deliveriesOf(a.id)).map((d) => d.eventId).sort()).toEqual([...events].sort());
  expect((await deliveriesOf(b.id)).map((d) => d.eventId).sort()).toEqual([...events].sort());
  expect(await ctx.dispatch.claimUndispatched(100)).toEqual([]);
});

test("a caller neither waits for nor takes the events another dispatcher holds", async () => {
  const fixture = await createFixture(ctx.pool);
  const registration = await register(ctx, kek, { projectId: fixture.projectId, eventType: "TransactionStatusChange" });
  await transactions(fixture, 6);
  const events = await eventIds(fixture.projectId);
  const held = events.slice(0, 3);

  const other = new Client({ connectionString: ctx.url });
  await other.connect();
  try {
    await other.query("BEGIN");
    await other.query(`SELECT id FROM event WHERE id = ANY ($1::uuid[]) FOR UPDATE`, [held]);

    const whileHeld = await claimWithoutWaiting(100);
    expect(whileHeld.map((d) => d.eventId)).toEqual(events.slice(3));

    await other.query("ROLLBACK");
  } finally {
    await other.end();
  }
  const afterwards = await ctx.dispatch.claimUndispatched(100);
  expect(afterwards.map((d) => d.eventId)).toEqual(held);
  expect(afterwards.every((d) => d.eventCallbackId === registration.id)).toBe(true);
});

test("a delivery is PENDING, due now, and carries its event's time and transaction as subject", async () => {
  const fixture = await createFixture(ctx.pool);
  const registration = await register(ctx, kek, { projectId: fixture.projectId, eventType: "TransactionStatusChange" });
  const [transactionId] = await transactions(fixture, 1);
  const event = (await ctx.pool.query<{ id: string; createdAt: Date }>(`SELECT id, created_at AS "createdAt" FROM event WHERE project_id = $1`, [fixture.projectId]))
    .rows[0];
  const before = new Date(Date.now() - 1000);

  const [delivery, ...more] = await ctx.dispatch.claimUndispatched(100);

  expect(more).toEqual([]);
  expect(delivery).toEqual({
    id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    eventId: event?.id,
    eventCallbackId: registration.id,
    status: "PENDING",
    attempts: 0,
    nextAttemptAt: expect.any(Date),
    deliveredAt: null,
    subject: transactionId,
    createdAt: event?.createdAt,
  });
  expect(delivery?.nextAttemptAt?.getTime()).toBeGreaterThan(before.getTime());
  const dispatched = await ctx.pool.query(`SELECT 1 FROM event WHERE id = $1 AND dispatched_at IS NOT NULL`, [event?.id]);
  expect(dispatched.rowCount).toBe(1);
});

test("registrations of another project or another event type get nothing", async () => {
  const mine = await createFixture(ctx.pool);
  const other = await createFixture(ctx.pool);
  const wanted = await register(ctx, kek, { projectId: mine.projectId, eventType: "TransactionStatusChange" });
  const otherType = await register(ctx, kek, { projectId: mine.projectId, eventType: "WalletBalanceLow" });
  const otherProject = await register(ctx, kek, { projectId: other.projectId, eventType: "TransactionStatusChange" });
  await transactions(mine, 3);

  const created = await ctx.drain(2);

  expect(created.map((d) => d.eventCallbackId)).toEqual([wanted.id, wanted.id, wanted.id]);
  expect(await deliveriesOf(otherType.id)).toEqual([]);
  expect(await deliveriesOf(otherProject.id)).toEqual([]);
});

test("a WalletBalanceLow event goes to the project's WalletBalanceLow registrations, without a subject", async () => {
  const fixture = await createFixture(ctx.pool);
  const lowBalance = await register(ctx, kek, { projectId: fixture.projectId, eventType: "WalletBalanceLow" });
  await register(ctx, kek, { projectId: fixture.projectId, eventType: "TransactionStatusChange" });
  await ctx.balances.recordBalance(fixture.chainId, fixture.wallets[0] as string, { balanceWei: 1n, blockNumber: 1 }, 10n);

  const created = await ctx.drain();

  expect(created).toEqual([expect.objectContaining({ eventCallbackId: lowBalance.id, subject: null })]);
});

test("disabled and deleted registrations get nothing; an event with no registration is dispatched all the same", async () => {
  const fixture = await createFixture(ctx.pool);
  const active = await register(ctx, kek, { projectId: fixture.projectId, eventType: "TransactionStatusChange" });
  const gone = await register(ctx, kek, { projectId: fixture.projectId, eventType: "TransactionStatusChange" });
  const deleted = await register(ctx, kek, { projectId: fixture.projectId, eventType: "TransactionStatusChange" });
  await ctx.callbacks.disable(gone.id, "410 Gone");
  await ctx.callbacks.delete(deleted.id);
  const lonely = await createFixture(ctx.pool);
  await transactions(fixture, 2);
  await transactions(lonely, 2);

  const created = await ctx.drain();

  expect(created.map((d) => d.eventCallbackId)).toEqual([active.id, active.id]);
  expect(await deliveriesOf(gone.id)).toEqual([]);
  expect(await deliveriesOf(deleted.id)).toEqual([]);
  const left = await ctx.pool.query(`SELECT 1 FROM event WHERE project_id = $1 AND dispatched_at IS NULL`, [lonely.projectId]);
  expect(left.rowCount).toBe(0);
});

test("a transaction's younger event waits while another dispatcher holds an older one, then follows it", async () => {
  const fixture = await createFixture(ctx.pool);
  const registration = await register(ctx, kek, { projectId: fixture.projectId, eventType: "TransactionStatusChange" });
  const [held] = await transactions(fixture, 1);
  const [free] = await transactions(fixture, 1);
  await ctx.transactions.move(fixture.projectId, held as string, { from: "PENDING", to: "SUBMITTED", set: { hash: "0x01" } });
  const [olderEvent] = await eventIds(fixture.projectId);
  const heldEvents = await ctx.pool.query<{ id: string }>(
    `SELECT id FROM event WHERE payload -> 'data' ->> 'transactionId' = $1 ORDER BY seq`,
    [held],
  );
  expect(heldEvents.rows[0]?.id).toBe(olderEvent);

  // Another dispatcher's transaction holds the held transaction's first event.
  const other = new Client({ connectionString: ctx.url });
  await other.connect();
  try {
    await other.query("BEGIN");
    await other.query(`SELECT id FROM event WHERE id = $1 FOR UPDATE`, [olderEvent]);

    const whileHeld = await claimWithoutWaiting(100);
    expect(whileHeld.map((d) => d.subject)).toEqual([free]);

    await other.query("ROLLBACK");
  } finally {
    await other.end();
  }
  const afterwards = await ctx.dispatch.claimUndispatched(100);
  expect(afterwards.map((d) => [d.eventId, d.subject])).toEqual(heldEvents.rows.map((e) => [e.id, held]));
  expect(afterwards.every((d) => d.eventCallbackId === registration.id)).toBe(true);
});

test("a transaction's events written in the same millisecond are dispatched in the order they were written, whatever their ids", async () => {
  const fixture = await createFixture(ctx.pool);
  const registration = await register(ctx, kek, { projectId: fixture.projectId, eventType: "TransactionStatusChange" });
  const subject = randomUUID();
  const createdAt = new Date("2026-11-22T12:00:00.123Z");
  // ffffffff-…, eeeeeeee-…, …: each id sorts before the one written before it.
  const written = [15, 14, 13, 12].map((n) => `${n.toString(16).repeat(8)}-0000-4000-8000-000000000000`);
  for (const id of written) {
    await ctx.pool.query(
      `INSERT INTO event (id, project_id, event_type, subject, payload, created_at) VALUES ($1, $2, 'TransactionStatusChange', $3, '{}', $4)`,
      [id, fixture.projectId, subject, createdAt],
    );
  }

  // One at a time, each claim must take the oldest; one batch must list them oldest first.
  const one = [];
  for (let i = 0; i < 2; i++) one.push(...(await ctx.dispatch.claimUndispatched(1)));
  const rest = await ctx.dispatch.claimUndispatched(100);

  expect([...one, ...rest].map((d) => d.eventId)).toEqual(written);
  expect([...one, ...rest].every((d) => d.eventCallbackId === registration.id && d.subject === subject)).toBe(true);
  // And the deliveries wait for each other in that order.
  const heldBack = await Promise.all([...one, ...rest].map(async (d) => (await ctx.deliveries.findForDelivery(d.id))?.heldBack));
  expect(heldBack).toEqual([false, true, true, true]);
});
