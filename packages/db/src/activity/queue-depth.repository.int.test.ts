import { randomUUID } from "node:crypto";
import { createFixture, newTransaction } from "../transactions/test-fixtures";
import { register, testKek, webhookTestContext, type WebhookTestContext } from "../webhooks/test-fixtures";
import { createProjectActivity, type ActivityBucket } from "./project-activity.repository";
import { createQueueDepthRepository, QUEUE_DEPTH_KEPT_MS } from "./queue-depth.repository";

let ctx: WebhookTestContext;
const kek = testKek();

beforeAll(async () => {
  ctx = await webhookTestContext();
});

afterAll(() => ctx.close());

const depth = (b: ActivityBucket | undefined) => b && [b.waitingTransactions, b.waitingDeliveries];

test("a minute's sample of each project's waiting work, once per minute; the activity read's series per bucket (the most of the bucket, 0 for a project with nothing, null where not sampled); a day kept", async () => {
  await ctx.drain();
  const fixture = await createFixture(ctx.pool);
  await register(ctx, kek, { projectId: fixture.projectId, eventType: "TransactionStatusChange" });
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const input = newTransaction(fixture);
    await ctx.transactions.create(input);
    ids.push(input.id);
  }
  await ctx.transactions.move(fixture.projectId, ids[0]!, { from: "PENDING", to: "SUBMITTED", set: { hash: "0x01" } });
  const deliveries = (await ctx.drain()).filter((d) => ids.includes(d.subject ?? ""));
  expect(deliveries.length).toBe(4); // three acceptances and a SUBMITTED, to the one registration

  const depths = createQueueDepthRepository(ctx.pool);
  // Two minutes at the start of the previous quarter hour: inside the last hour, in one bucket of the day.
  const quarter = 900_000;
  const t0 = Math.floor(Date.now() / quarter) * quarter - quarter;
  const first = await depths.sample(t0 + 5_000);
  expect(first.projects).toBeGreaterThanOrEqual(1);
  // The same minute again (another replica, a run repeated): not sampled twice.
  expect(await depths.sample(t0 + 30_000)).toEqual({ projects: null });

  // A minute later: one confirmed, two of its deliveries made.
  await ctx.transactions.move(fixture.projectId, ids[0]!, { from: "SUBMITTED", to: "CONFIRMED", set: { blockNumber: 7n } });
  await ctx.drain(); // the CONFIRMED event's delivery: PENDING too
  for (const d of deliveries.slice(0, 2)) await ctx.deliveries.recordAttempt(d.id, { responseStatus: 200, data: { durationMs: 1 }, next: { status: "DELIVERED" } });
  await depths.sample(t0 + 60_000);

  const read = createProjectActivity(ctx.pool);
  const hour = await read(fixture.projectId, "hour");
  const at = (buckets: ActivityBucket[], ms: number) => buckets.find((b) => b.start.getTime() === ms);
  expect(depth(at(hour.buckets, t0))).toEqual([3, 4]);
  expect(depth(at(hour.buckets, t0 + 60_000))).toEqual([2, 3]);
  // A minute no sampler ran: no figure, not a zero.
  expect(depth(at(hour.buckets, t0 + 120_000))).toEqual([null, null]);
  // Another project at a sampled minute: nothing waited.
  const other = await read(randomUUID(), "hour");
  expect(depth(at(other.buckets, t0))).toEqual([0, 0]);
  // The day's quarter hour: the most it had waiting at a sampled minute of it.
  const day = await read(fixture.projectId, "day");
  expect(depth(at(day.buckets, t0))).toEqual([3, 4]);

  // A day on, the older minute is gone and the later one kept.
  await depths.sample(t0 + 60_000 + QUEUE_DEPTH_KEPT_MS);
  const kept = await ctx.pool.query<{ minute: Date }>(`SELECT minute FROM queue_depth_sample WHERE project_id = $1 ORDER BY minute`, [fixture.projectId]);
  expect(kept.rows.map((r) => r.minute.getTime())).toEqual([t0 + 60_000, t0 + 60_000 + QUEUE_DEPTH_KEPT_MS]);
  const minutes = await ctx.pool.query<{ minute: Date }>(`SELECT minute FROM queue_depth_minute WHERE minute >= $1 ORDER BY minute`, [new Date(t0)]);
  expect(minutes.rows.map((r) => r.minute.getTime())).toEqual([t0 + 60_000, t0 + 60_000 + QUEUE_DEPTH_KEPT_MS]);
  await ctx.pool.query(`DELETE FROM queue_depth_sample WHERE minute > now()`);
  await ctx.pool.query(`DELETE FROM queue_depth_minute WHERE minute > now()`);
});
