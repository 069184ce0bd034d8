import type { Sql } from "../client";
import { PRUNE_DISABLED_CALLBACKS, PRUNE_HISTORY } from "./webhook-history.sql";

/** Where a pruning pass has got to: the last event looked at, in (dispatched_at, seq) order. */
export interface PruneCursor {
  dispatchedAt: Date;
  seq: string;
}

export interface PrunedHistory {
  /** Events looked at: `limit` of them means more may be past the cut-off. */
  looked: number;
  events: number;
  deliveries: number;
  stats: number;
  /** Pass it to the next call to go on after the events looked at; null when none was. */
  next: PruneCursor | null;
}

type PruneRow = Omit<PrunedHistory, "next"> & { lastDispatchedAt: Date | null; lastSeq: string | null };

/**
 * The webhook history's retention (docs/webhooks.md, "Retention"): events, their deliveries and
 * the deliveries' stats entries, deleted together once the event was dispatched long enough ago
 * and none of its deliveries is still retrying; then the disabled registrations, once nothing
 * points at them. Transactions, their status history and signatures
 * are the project's records and are kept.
 */
export function createWebhookHistoryRepository(sql: Sql) {
  return {
    prune: async (before: Date, limit: number, after: PruneCursor | null = null): Promise<PrunedHistory> => {
      const { rows } = await sql.query<PruneRow>({ name: "webhookHistory.prune", text: PRUNE_HISTORY }, [before, limit, after?.dispatchedAt ?? null, after?.seq ?? null]);
      const { lastDispatchedAt, lastSeq, ...counts } = rows[0]!;
      return { ...counts, next: lastDispatchedAt && lastSeq ? { dispatchedAt: lastDispatchedAt, seq: lastSeq } : null };
    },
    /**
     * Deletes for good at most `limit` registrations disabled (deleted, or by a 410) before
     * `before` whose history is gone (a DELETE only disables a registration while deliveries or
     * stats entries point at it); how many.
     */
    pruneDisabledCallbacks: async (before: Date, limit: number): Promise<number> =>
      (await sql.query({ name: "webhookHistory.pruneDisabledCallbacks", text: PRUNE_DISABLED_CALLBACKS }, [before, limit])).rowCount ?? 0,
  };
}

export type WebhookHistoryRepository = ReturnType<typeof createWebhookHistoryRepository>;
