import { createFixture, newTransaction, type Fixture } from "../transactions/test-fixtures";
import { register, testKek, webhookTestContext, type WebhookTestContext } from "./test-fixtures";
import { createWebhookHistoryRepository } from "./webhook-history.repository";

let ctx: WebhookTestContext;
let fixture: Fixture;
const kek = testKek();
const DAY = 24 * 3600_000;

beforeAll(async () => {
  ctx = await webhookTestContext();
  fixture = await createFixture(ctx.pool);
});
afterAll(() => ctx.close());

const count = async (table: string, where: string, params: unknown[]) =>
  (await ctx.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, params)).rows[0]!.n;

test("deletes events dispatched before the cut-off with their deliveries and stats, keeping any with a delivery still retrying, undispatched ones and newer ones", async () => {
  const history = createWebhookHistoryRepository(ctx.pool);
  await register(ctx, kek, { projectId: fixture.projectId, eventType: "TransactionStatusChange" });
  // Three transactions: one event (PENDING) each, one delivery each to the registration.
  for (let i = 0; i < 3; i++) await ctx.transactions.create(newTransaction(fixture));
  const [delivered, retrying, recent] = await ctx.drain();
  await ctx.deliveries.recordAttempt(delivered!.id, { responseStatus: 500, data: { durationMs: 1 }, next: { status: "PENDING", nextAttemptAt: new Date() } });
  await ctx.deliveries.recordAttempt(delivered!.id, { responseStatus: 200, data: { durationMs: 1 }, next: { status: "DELIVERED" } });
  await ctx.deliveries.recordAttempt(retrying!.id, { responseStatus: 503, data: { durationMs: 1 }, next: { status: "PENDING", nextAttemptAt: new Date(Date.now() + 3600_000) } });
  await ctx.deliveries.recordAttempt(recent!.id, { responseStatus: 200, data: { durationMs: 1 }, next: { status: "DELIVERED" } });
  // The first two were dispatched 40 days ago; an event of as long ago is still undispatched.
  await ctx.pool.query(`UPDATE event SET dispatched_at = now() - interval '40 days' WHERE id = ANY($1::uuid[])`, [[delivered!.eventId, retrying!.eventId]]);
  const undispatched = (
    await ctx.pool.query<{ id: string }>(
      `INSERT INTO event (project_id, event_type, payload, created_at) VALUES ($1, 'WalletBalanceLow', '{}', now() - interval '40 days') RETURNING id`,
      [fixture.projectId],
    )
  ).rows[0]!.id;

  const pruned = await history.prune(new Date(Date.now() - 30 * DAY), 100);
  expect(pruned).toEqual({ looked: 2, events: 1, deliveries: 1, stats: 2, next: expect.objectContaining({ seq: expect.any(String) }) });
  expect(await count("event", "id = $1", [delivered!.eventId])).toBe(0);
  expect(await count("webhook_delivery", "id = $1", [delivered!.id])).toBe(0);
  expect(await count("event_callback_stat", "delivery_id = $1", [delivered!.id])).toBe(0);
  // Kept: the event whose delivery still retries (with that delivery and its stats entry), the
  // undispatched one, the recent one.
  expect(await count("webhook_delivery", "id = ANY($1::uuid[])", [[retrying!.id, recent!.id]])).toBe(2);
  expect(await count("event_callback_stat", "delivery_id = ANY($1::uuid[])", [[retrying!.id, recent!.id]])).toBe(2);
  expect(await count("event", "id = ANY($1::uuid[])", [[retrying!.eventId, recent!.eventId, undispatched]])).toBe(3);

  // Once the retrying delivery is final, its event goes too.
  await ctx.deliveries.recordAttempt(retrying!.id, { responseStatus: 200, data: { durationMs: 1 }, next: { status: "DELIVERED" } });
  expect(await history.prune(new Date(Date.now() - 30 * DAY), 100)).toMatchObject({ looked: 1, events: 1, deliveries: 1, stats: 2 });
  expect(await count("event", "id = ANY($1::uuid[])", [[recent!.eventId, undispatched]])).toBe(2);
});

test("takes at most `limit` events a statement, oldest first", async () => {
  const history = createWebhookHistoryRepository(ctx.pool);
  const own = await createFixture(ctx.pool);
  for (let i = 0; i < 3; i++) await ctx.transactions.create(newTransaction(own));
  const events = (await ctx.pool.query<{ id: string }>(`SELECT id FROM event WHERE project_id = $1 ORDER BY seq`, [own.projectId])).rows.map((r) => r.id);
  await ctx.drain();
  // Dispatched 50, 49 and 48 days ago, in that order.
  for (const [i, id] of events.entries()) await ctx.pool.query(`UPDATE event SET dispatched_at = now() - make_interval(days => $2) WHERE id = $1`, [id, 50 - i]);

  expect(await history.prune(new Date(Date.now() - 30 * DAY), 2)).toMatchObject({ looked: 2, events: 2 });
  expect((await ctx.pool.query<{ id: string }>(`SELECT id FROM event WHERE project_id = $1`, [own.projectId])).rows.map((r) => r.id)).toEqual([events[2]]);
});

test("goes on after the cursor: an event kept for a retrying delivery is not read again by the next batch", async () => {
  const history = createWebhookHistoryRepository(ctx.pool);
  const own = await createFixture(ctx.pool);
  await register(ctx, kek, { projectId: own.projectId, eventType: "TransactionStatusChange" });
  for (let i = 0; i < 2; i++) await ctx.transactions.create(newTransaction(own));
  const [retrying, done] = (await ctx.drain()).filter((d) => d.eventId !== undefined);
  await ctx.deliveries.recordAttempt(retrying!.id, { responseStatus: 503, data: { durationMs: 1 }, next: { status: "PENDING", nextAttemptAt: new Date(Date.now() + 3600_000) } });
  await ctx.deliveries.recordAttempt(done!.id, { responseStatus: 200, data: { durationMs: 1 }, next: { status: "DELIVERED" } });
  // Older than anything else in this database: these two are the first in line.
  await ctx.pool.query(`UPDATE event SET dispatched_at = now() - interval '90 days' WHERE id = $1`, [retrying!.eventId]);
  await ctx.pool.query(`UPDATE event SET dispatched_at = now() - interval '89 days' WHERE id = $1`, [done!.eventId]);

  const cutOff = new Date(Date.now() - 30 * DAY);
  const first = await history.prune(cutOff, 1);
  expect(first).toMatchObject({ looked: 1, events: 0 });
  // From the top again, the same kept event; after the cursor, the next one.
  expect(await history.prune(cutOff, 1)).toMatchObject({ looked: 1, events: 0 });
  expect(await history.prune(cutOff, 1, first.next)).toMatchObject({ looked: 1, events: 1, deliveries: 1 });
  expect(await count("event", "id = $1", [retrying!.eventId])).toBe(1);
  expect(await count("event", "id = $1", [done!.eventId])).toBe(0);
});
