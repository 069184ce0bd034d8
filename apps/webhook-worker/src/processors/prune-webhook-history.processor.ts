import type { WebhookHistoryRepository } from "@relay/db";
import type { Processor } from "@relay/queue";

export interface PruneWebhookHistoryDeps {
  history: Pick<WebhookHistoryRepository, "prune">;
  /** How long an event's webhook history is kept after its dispatch; null keeps it for ever. */
  retentionMs: number | null;
  now: () => number;
  /** Events per statement; each statement is one short database transaction. */
  batch?: number;
  /** Statements per run at most: a large backlog goes over several runs, not one long one. */
  maxBatches?: number;
}

/**
 * Deletes the webhook history past its retention (docs/webhooks.md, "Retention"): events
 * dispatched more than `retentionMs` ago with their deliveries and stats entries, in batches,
 * oldest first. Without it, every event, delivery and attempt was kept for ever.
 */
export function createPruneWebhookHistoryProcessor(deps: PruneWebhookHistoryDeps): Processor<"pruneWebhookHistory"> {
  const batch = deps.batch ?? 1_000;
  const maxBatches = deps.maxBatches ?? 20;
  return async (_payload, { logger }) => {
    const total = { events: 0, deliveries: 0, stats: 0 };
    if (deps.retentionMs === null) return { ...total, retention: "forever" };
    const before = new Date(deps.now() - deps.retentionMs);
    for (let i = 0; i < maxBatches; i++) {
      const pruned = await deps.history.prune(before, batch);
      total.events += pruned.events;
      total.deliveries += pruned.deliveries;
      total.stats += pruned.stats;
      if (pruned.looked < batch) break;
    }
    if (total.events > 0) logger.info({ ...total, before: before.toISOString() }, "deleted webhook history past its retention");
    return total;
  };
}
