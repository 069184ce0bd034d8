import type { TransactionStatus } from "@relay/lifecycle";

/**
 * The outbox row of a TransactionStatusChange, as docs/webhooks.md ("Payloads") specifies the
 * body: `{id, eventType, projectId, createdAt, data}`, ids and integers as strings except
 * `chainId`, a number as requests carry it. `payload` is what the webhook worker sends, its keys
 * sorted (packages/webhooks delivery-body.ts).
 */
export interface TransactionStatusChangePayload {
  id: string;
  eventType: "TransactionStatusChange";
  projectId: string;
  /** ISO 8601 in UTC with milliseconds, the same instant as the status change row. */
  createdAt: string;
  data: {
    transactionId: string;
    chainId: number;
    status: TransactionStatus;
    previousStatus: TransactionStatus | null;
    hash: string | null;
    blockNumber: string | null;
    from: string | null;
    nonce: string | null;
    reason: string | null;
  };
}

/**
 * SQL that writes one status change and its outbox event for the transaction row a preceding CTE
 * named `changed` returned: TRANSACTION_COLUMNS plus `"changedAt"` (the row's new timestamp),
 * `"previousStatus"` and `"reason"`. Two more CTEs of the same statement, so the status, its
 * history row and its event commit together or not at all. `eventId` is the statement's
 * parameter (e.g. `$9`) holding the event's id, which is also the payload's `id`.
 */
export function statusChangeAndEventCtes(eventId: string): string {
  return `
  status_change AS (
    INSERT INTO transaction_status_change (project_id, transaction_id, status, previous_status, reason, created_at)
    SELECT c."projectId", c.id, c.status, c."previousStatus", c.reason, c."changedAt"
      FROM changed c
  ),
  outbox AS (
    INSERT INTO event (id, project_id, event_type, subject, payload, created_at)
    SELECT ${eventId}::uuid, c."projectId", 'TransactionStatusChange'::"EventType", c.id::text,
           jsonb_build_object(
             'id', ${eventId}::uuid,
             'eventType', 'TransactionStatusChange',
             'projectId', c."projectId",
             'createdAt', to_char(c."changedAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'data', jsonb_build_object(
               'transactionId', c.id,
               'chainId', c."chainId"::bigint,
               'status', c.status,
               'previousStatus', c."previousStatus",
               'hash', c.hash,
               'blockNumber', c."blockNumber",
               'from', c."fromAddress",
               'nonce', c.nonce,
               'reason', c.reason)),
           c."changedAt"
      FROM changed c
  )`;
}
