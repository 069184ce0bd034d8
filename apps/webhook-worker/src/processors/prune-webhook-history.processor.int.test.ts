import { createLogger } from "@relay/core";
import { createEventCallbackRepository, createWebhookHistoryRepository } from "@relay/db";
import type { Job } from "@relay/queue";
import { createProjectFixture, testKek } from "@relay/testing";
import { generateWebhookSecret, sealWebhookSecret } from "@relay/webhooks";
import { randomBytes } from "node:crypto";
import { ownBackends, type OwnBackends } from "../../test/support";
import { createPruneWebhookHistoryProcessor } from "./prune-webhook-history.processor";

const context = { job: {} as Job, logger: createLogger({ name: "prune-test", level: "silent" }) };
const DAY = 24 * 3600_000;

describe("pruneWebhookHistory processor", () => {
  let b: OwnBackends;
  beforeAll(async () => {
    b = await ownBackends("prune-history", 2);
  });
  afterAll(() => b?.close());

  /** `n` events dispatched `daysAgo` days ago (no registration: no deliveries). */
  async function dispatchedEvents(n: number, daysAgo: number): Promise<void> {
    const project = await createProjectFixture(b.db, testKek(), { wallets: 0 });
    await b.pool.query(
      `INSERT INTO event (project_id, event_type, payload, created_at, dispatched_at)
       SELECT $1, 'WalletBalanceLow', '{}', now() - make_interval(days => $3), now() - make_interval(days => $3) FROM generate_series(1, $2)`,
      [project.projectId, n, daysAgo],
    );
  }
  const events = async () => (await b.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM event`)).rows[0]!.n;

  it("keeps everything when the retention is for ever", async () => {
    await dispatchedEvents(3, 400);
    const prune = createPruneWebhookHistoryProcessor({ history: createWebhookHistoryRepository(b.pool), retentionMs: null, now: Date.now });
    expect(await prune({ v: 1 }, context)).toMatchObject({ events: 0, retention: "forever" });
    expect(await events()).toBe(3);
  });

  it("deletes everything past the retention in one run, batch after batch, and nothing newer", async () => {
    await dispatchedEvents(4, 31);
    await dispatchedEvents(2, 29);
    const prune = createPruneWebhookHistoryProcessor({ history: createWebhookHistoryRepository(b.pool), retentionMs: 30 * DAY, now: Date.now, batch: 2 });
    // The 3 from the first test (400 days) and these 4: seven past the retention, in batches of 2.
    // Four batches of events, one (empty) of deleted registrations.
    expect(await prune({ v: 1 }, context)).toEqual({ events: 7, deliveries: 0, stats: 0, registrations: 0, batches: 5 });
    expect(await events()).toBe(2);
  });

  it("stops a run when its time budget is spent; the next run goes on", async () => {
    await dispatchedEvents(6, 31);
    let clock = 0;
    // Each batch takes "10 s" of a 15 s budget: two batches a run.
    const history = createWebhookHistoryRepository(b.pool);
    const slow = { ...history, prune: async (...args: Parameters<typeof history.prune>) => ((clock += 10_000), history.prune(...args)) };
    const prune = createPruneWebhookHistoryProcessor({ history: slow, retentionMs: 30 * DAY, now: () => Date.now() + clock, batch: 2, budgetMs: 15_000 });
    expect(await prune({ v: 1 }, context)).toMatchObject({ events: 4, batches: 2 });
    expect(await prune({ v: 1 }, context)).toMatchObject({ events: 2 });
  });

  it("deletes for good the registrations disabled before the cut-off that nothing points at any more, and no other", async () => {
    const project = await createProjectFixture(b.db, testKek(), { wallets: 0 });
    const keyring = { activeKeyId: "k1", keys: new Map([["k1", randomBytes(32)]]) };
    const callbacks = createEventCallbackRepository({ sql: b.pool, db: b.db });
    const register = async () =>
      (await callbacks.create({
        projectId: project.projectId,
        callbackUrl: "https://receiver.example/hook",
        eventType: "TransactionStatusChange",
        sealSecret: (id) => sealWebhookSecret(keyring, id, generateWebhookSecret()),
      }))!.id;
    const [gone, withStats, recent, gave410, active] = [await register(), await register(), await register(), await register(), await register()];
    for (const id of [gone, withStats, recent]) expect(await callbacks.delete(id)).toBe(true);
    await callbacks.disable(gave410, "receiver answered 410 Gone");
    const daysAgo = (id: string, days: number) => b.pool.query(`UPDATE event_callback SET disabled_at = now() - make_interval(days => $2) WHERE id = $1`, [id, days]);
    await Promise.all([daysAgo(gone, 31), daysAgo(withStats, 31), daysAgo(recent, 29), daysAgo(gave410, 31)]);
    // An attempt of an event still within the retention points at this one.
    await b.pool.query(`INSERT INTO event_callback_stat (event_callback_id, data, response_status) VALUES ($1, '{}', 200)`, [withStats]);

    const prune = createPruneWebhookHistoryProcessor({ history: createWebhookHistoryRepository(b.pool), retentionMs: 30 * DAY, now: Date.now });
    expect(await prune({ v: 1 }, context)).toMatchObject({ registrations: 2 });
    const left = (await b.pool.query<{ id: string }>(`SELECT id FROM event_callback WHERE project_id = $1`, [project.projectId])).rows.map((r) => r.id);
    expect(left.sort()).toEqual([withStats, recent, active].sort());
  });
});
