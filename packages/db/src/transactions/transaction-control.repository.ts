import { randomUUID } from "node:crypto";
import type { Sql } from "../client";
import { CANCEL_UNSENT, REQUEST_CANCEL, REQUEST_SPEED_UP } from "./transaction-control.sql";
import { toTransaction, type TransactionRecord, type TransactionRow } from "./transaction-record";

/** What the history says of a transaction cancelled before anything of it was sent. */
export const CANCELLED_UNSENT_REASON = "cancelled on request before it was sent";

/**
 * Cancel and speed-up requests, as the gateway records them (docs/transactions.md, "Cancelling and
 * speeding up"); the tx-worker acts on them in its lifecycle steps.
 *
 * - requestCancel: marks an unfinished transaction; null when it is final or missing.
 * - cancelUnsent: PENDING or PAUSED → CANCELLED when nothing of it can have reached a node; false
 *   when something may have (the tx-worker then sends a cancel at its nonce).
 * - requestSpeedUp: marks a SUBMITTED transaction with no cancel asked for; null otherwise.
 */
export function createTransactionControl(sql: Sql) {
  const one = async (name: string, text: string, projectId: string, id: string): Promise<TransactionRecord | null> => {
    const row = (await sql.query<TransactionRow>({ name, text }, [projectId, id])).rows[0];
    return row ? toTransaction(row) : null;
  };
  return {
    requestCancel: (projectId: string, id: string) => one("transaction.requestCancel", REQUEST_CANCEL, projectId, id),
    cancelUnsent: async (projectId: string, id: string): Promise<boolean> =>
      (await sql.query({ name: "transaction.cancelUnsent", text: CANCEL_UNSENT }, [projectId, id, CANCELLED_UNSENT_REASON, randomUUID()])).rows.length === 1,
    requestSpeedUp: (projectId: string, id: string) => one("transaction.requestSpeedUp", REQUEST_SPEED_UP, projectId, id),
  };
}

export type TransactionControl = ReturnType<typeof createTransactionControl>;
