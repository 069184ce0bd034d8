import type { Sql } from "../client";
import { PRUNE_HISTORY } from "./webhook.sql";

export interface PrunedHistory {
  /** Events looked at: `limit` of them means more may be past the cut-off. */
  looked: number;
  events: number;
  deliveries: number;
  stats: number;
}

/**
 * The webhook history's retention (docs/webhooks.md, "Retention"): events, their deliveries and
 * the deliveries' stats entries, deleted together once the event was dispatched long enough ago
 * and none of its deliveries is still retrying. Transactions, their status history and signatures
 * are the project's records and are kept.
 */
export function createWebhookHistoryRepository(sql: Sql) {
  return {
    prune: async (before: Date, limit: number): Promise<PrunedHistory> => {
      const { rows } = await sql.query<PrunedHistory>({ name: "webhookHistory.prune", text: PRUNE_HISTORY }, [before, limit]);
      return rows[0]!;
    },
  };
}

export type WebhookHistoryRepository = ReturnType<typeof createWebhookHistoryRepository>;
