import { randomUUID } from "node:crypto";
import { createFixture, newTransaction, type Fixture } from "../transactions/test-fixtures";
import { register, testKek, webhookTestContext, type WebhookTestContext } from "./test-fixtures";
import { createTransactionEvents } from "./transaction-events.repository";

let ctx: WebhookTestContext;
const kek = testKek();
let fixture: Fixture;

beforeAll(async () => {
  ctx = await webhookTestContext();
});

afterAll(() => ctx.close());

test("a transaction's events in order, each with its deliveries and their latest answers; nothing of another transaction or project", async () => {
  await ctx.drain();
  fixture = await createFixture(ctx.pool);
  const callback = await register(ctx, kek, { projectId: fixture.projectId, eventType: "TransactionStatusChange" });
  const input = newTransaction(fixture);
  await ctx.transactions.create(input);
  await ctx.transactions.move(fixture.projectId, input.id, { from: "PENDING", to: "SUBMITTED", set: { hash: "0x01" } });
  const other = newTransaction(fixture);
  await ctx.transactions.create(other);
  const deliveries = (await ctx.drain()).filter((d) => d.subject === input.id);
  expect(deliveries).toHaveLength(2);
  await ctx.deliveries.recordAttempt(deliveries[0]!.id, { responseStatus: 500, data: { durationMs: 3 }, next: { status: "PENDING", nextAttemptAt: new Date(Date.now() + 60_000) } });
  await ctx.deliveries.recordAttempt(deliveries[0]!.id, { responseStatus: 204, data: { durationMs: 2 }, next: { status: "DELIVERED" } });
  // Recorded, not yet dispatched: no deliveries.
  await ctx.transactions.move(fixture.projectId, input.id, { from: "SUBMITTED", to: "CONFIRMED", set: { blockNumber: 7n } });

  const read = createTransactionEvents(ctx.pool);
  const events = await read(fixture.projectId, input.id);
  expect(events.map((e) => [e.eventType, (e.payload as { data: { status: string } }).data.status, e.dispatchedAt === null])).toEqual([
    ["TransactionStatusChange", "PENDING", false],
    ["TransactionStatusChange", "SUBMITTED", false],
    ["TransactionStatusChange", "CONFIRMED", true],
  ]);
  expect(events[0]!.deliveries).toEqual([
    { deliveryId: deliveries[0]!.id, eventCallbackId: callback.id, callbackUrl: callback.callbackUrl, status: "DELIVERED", attempts: 2, nextAttemptAt: null, deliveredAt: expect.any(Date), lastResponseStatus: 204 },
  ]);
  expect(events[1]!.deliveries).toEqual([
    { deliveryId: deliveries[1]!.id, eventCallbackId: callback.id, callbackUrl: callback.callbackUrl, status: "PENDING", attempts: 0, nextAttemptAt: expect.any(Date), deliveredAt: null, lastResponseStatus: null },
  ]);
  expect(events[2]!.deliveries).toEqual([]);
  expect(await read(randomUUID(), input.id)).toEqual([]);
  expect((await read(fixture.projectId, other.id)).map((e) => e.eventId)).not.toContain(events[0]!.eventId);
});
