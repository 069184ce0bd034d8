import { statusChangeAndEventCtes } from "./status-change-event";
import { TRANSACTION_COLUMNS } from "./transaction-record";

/**
 * The statements of cancel and speed-up requests (docs/transactions.md, "Cancelling and speeding
 * up"). The gateway has no keys: it records the request, and the tx-worker acts on it.
 */

/**
 * $1 project, $2 id: records a cancel request on an unfinished transaction (the first one's time
 * is kept). Takes the row's lock, which RECORD_ATTEMPTS takes too: once this commits, no attempt of
 * the call is stored any more. Returns the row; none when it is final or missing.
 */
export const REQUEST_CANCEL = `
  UPDATE transaction AS t SET cancel_requested_at = COALESCE(t.cancel_requested_at, now())
   WHERE t.project_id = $1 AND t.id = $2 AND t.status IN ('PENDING', 'SUBMITTED', 'PAUSED')
  RETURNING ${TRANSACTION_COLUMNS}`;

/**
 * $1 project, $2 id, $3 reason, $4 event id: PENDING or PAUSED → CANCELLED when no attempt was
 * ever broadcast (PAUSED) or none is even stored (PENDING: one stored may have reached a node
 * just before a crash, so the tx-worker replaces it with a cancel at its nonce instead). Run after
 * REQUEST_CANCEL committed, so an attempt stored before it is seen here. With its status change
 * and event; returns the moved row.
 */
export const CANCEL_UNSENT = `
  WITH changed AS (
    UPDATE transaction AS t SET status = 'CANCELLED', error = NULL, updated_at = now()
     WHERE t.project_id = $1 AND t.id = $2 AND t.cancel_requested_at IS NOT NULL
       AND (t.status = 'PAUSED' AND NOT EXISTS (SELECT 1 FROM transaction_attempt a
                                                 WHERE a.project_id = t.project_id AND a.transaction_id = t.id AND a.broadcast_at IS NOT NULL)
            OR t.status = 'PENDING' AND NOT EXISTS (SELECT 1 FROM transaction_attempt a
                                                     WHERE a.project_id = t.project_id AND a.transaction_id = t.id))
    RETURNING ${TRANSACTION_COLUMNS},
              t.updated_at AS "changedAt",
              (SELECT s.status FROM transaction_status_change s WHERE s.project_id = t.project_id AND s.transaction_id = t.id
                ORDER BY s.id DESC LIMIT 1) AS "previousStatus",
              $3::text AS reason
  ),${statusChangeAndEventCtes("$4")}
  SELECT "projectId", id FROM changed`;

/**
 * $1 project, $2 id: records a speed-up request on a SUBMITTED transaction with no cancel asked
 * for. Returns the row; none otherwise.
 */
export const REQUEST_SPEED_UP = `
  UPDATE transaction AS t SET speed_up_requested_at = now()
   WHERE t.project_id = $1 AND t.id = $2 AND t.status = 'SUBMITTED' AND t.cancel_requested_at IS NULL
  RETURNING ${TRANSACTION_COLUMNS}`;
