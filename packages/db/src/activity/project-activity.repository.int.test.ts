import { randomUUID } from "node:crypto";
import { createFixture, newTransaction } from "../transactions/test-fixtures";
import { register, testKek, webhookTestContext, type WebhookTestContext } from "../webhooks/test-fixtures";
import { createProjectActivity, type ActivityBucket } from "./project-activity.repository";

let ctx: WebhookTestContext;
const kek = testKek();

beforeAll(async () => {
  ctx = await webhookTestContext();
});

afterAll(() => ctx.close());

const sum = (buckets: ActivityBucket[], key: "accepted" | "confirmed" | "deliveryAttempts" | "deliveredAttempts") => buckets.reduce((n, b) => n + b[key], 0);

test("a project's transactions accepted and confirmed, times to confirm, delivery attempts and what waits, in buckets ending now; nothing of another project", async () => {
  await ctx.drain();
  const fixture = await createFixture(ctx.pool);
  await register(ctx, kek, { projectId: fixture.projectId, eventType: "TransactionStatusChange" });
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const input = newTransaction(fixture);
    await ctx.transactions.create(input);
    ids.push(input.id);
  }
  for (const id of ids.slice(0, 2)) {
    await ctx.transactions.move(fixture.projectId, id, { from: "PENDING", to: "SUBMITTED", set: { hash: `0x0${ids.indexOf(id)}` } });
  }
  await ctx.transactions.move(fixture.projectId, ids[0]!, { from: "SUBMITTED", to: "CONFIRMED", set: { blockNumber: 7n } });
  const deliveries = (await ctx.drain()).filter((d) => ids.includes(d.subject ?? ""));
  await ctx.deliveries.recordAttempt(deliveries[0]!.id, { responseStatus: 200, data: { durationMs: 1 }, next: { status: "DELIVERED" } });
  await ctx.deliveries.recordAttempt(deliveries[1]!.id, { responseStatus: 500, data: { durationMs: 1 }, next: { status: "PENDING", nextAttemptAt: new Date(Date.now() + 60_000) } });

  const read = createProjectActivity(ctx.pool);
  const hour = await read(fixture.projectId, "hour");
  expect({ buckets: hour.buckets.length, bucketSeconds: hour.bucketSeconds }).toEqual({ buckets: 60, bucketSeconds: 60 });
  expect(hour.buckets.at(-1)!.start.getTime()).toBeLessThanOrEqual(Date.now());
  expect(hour.buckets.at(-1)!.start.getTime()).toBeGreaterThan(Date.now() - 120_000);
  expect([sum(hour.buckets, "accepted"), sum(hour.buckets, "confirmed"), sum(hour.buckets, "deliveryAttempts"), sum(hour.buckets, "deliveredAttempts")]).toEqual([3, 1, 2, 1]);
  const withConfirmation = hour.buckets.find((b) => b.confirmed > 0)!;
  expect(withConfirmation.confirmSecondsP50).toBeGreaterThanOrEqual(0);
  expect(withConfirmation.confirmSecondsP99).toBeGreaterThanOrEqual(withConfirmation.confirmSecondsP50!);
  expect(hour.waiting).toEqual({ pending: 1, submitted: 1, paused: 0, deliveriesPending: deliveries.length - 1, eventsUndispatched: 0 });

  const day = await read(fixture.projectId, "day");
  expect(day.buckets).toHaveLength(96);
  expect(sum(day.buckets, "accepted")).toBe(3);

  const none = await read(randomUUID(), "hour");
  expect([sum(none.buckets, "accepted"), sum(none.buckets, "deliveryAttempts")]).toEqual([0, 0]);
  expect(none.waiting).toEqual({ pending: 0, submitted: 0, paused: 0, deliveriesPending: 0, eventsUndispatched: 0 });
});
