import type { PruneCursor, WebhookHistoryRepository } from "@relay/db";
import type { Processor } from "@relay/queue";

export interface PruneWebhookHistoryDeps {
  history: Pick<WebhookHistoryRepository, "prune" | "pruneDisabledCallbacks">;
  /** How long an event's webhook history is kept after its dispatch; null keeps it for ever. */
  retentionMs: number | null;
  now: () => number;
  /** Events per statement; each statement is one short database transaction. */
  batch?: number;
  /** How long one run goes on while batches come back full; the next run (a minute later) goes on. */
  budgetMs?: number;
}

/**
 * Deletes the webhook history past its retention (docs/webhooks.md, "Retention"): events
 * dispatched more than `retentionMs` ago with their deliveries and stats entries, then the
 * registrations disabled as long ago that nothing points at any more, in batches,
 * oldest first, for as long as batches come back full and the run's time budget lasts (a budget
 * of 30 s a minute deletes thousands of events a second, more than the relay writes). Each batch
 * goes on after the last event the one before looked at, so events kept for a delivery still
 * retrying are passed over, not read again by every batch.
 */
export function createPruneWebhookHistoryProcessor(deps: PruneWebhookHistoryDeps): Processor<"pruneWebhookHistory"> {
  const batch = deps.batch ?? 1_000;
  const budgetMs = deps.budgetMs ?? 30_000;
  return async (_payload, { logger }) => {
    const total = { events: 0, deliveries: 0, stats: 0, registrations: 0, batches: 0 };
    if (deps.retentionMs === null) return { ...total, retention: "forever" };
    const started = deps.now();
    const before = new Date(started - deps.retentionMs);
    let after: PruneCursor | null = null;
    do {
      const pruned = await deps.history.prune(before, batch, after);
      total.events += pruned.events;
      total.deliveries += pruned.deliveries;
      total.stats += pruned.stats;
      total.batches++;
      if (pruned.looked < batch) break;
      after = pruned.next;
    } while (deps.now() - started < budgetMs);
    // Then the registrations disabled before the cut-off whose history that took with it (a
    // project that registers and deletes in a loop leaves one row per turn).
    while (deps.now() - started < budgetMs) {
      const gone = await deps.history.pruneDisabledCallbacks(before, batch);
      total.registrations += gone;
      total.batches++;
      if (gone < batch) break;
    }
    if (total.events > 0 || total.registrations > 0) logger.info({ ...total, before: before.toISOString() }, "deleted webhook history past its retention");
    return total;
  };
}
