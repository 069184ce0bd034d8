import { DELIVERY_COLUMNS } from "./webhook-delivery.sql";

/**
 * The statement of event-dispatch.repository.ts: events become deliveries in one statement, so one
 * round trip and one database transaction (data-modifying CTEs commit together or not at all).
 */

/**
 * $1 limit. Takes the oldest undispatched events no other dispatcher holds, creates one PENDING
 * delivery per active registration of each event's project and type, and marks them dispatched.
 * Every row carries `candidateEvents` (events locked) and `claimedEvents` (of those, dispatched);
 * one row with null delivery columns when no delivery was created. The counts are of events, not
 * deliveries: an event may have none (no registration) or several.
 *
 * An event whose subject (transactionId) has an older undispatched event outside this batch (held
 * by another dispatcher, or past the limit) is left for a later call: the older one's deliveries
 * must exist before the younger one's, or `FIND_FOR_DELIVERY` could not hold the younger back.
 * Events are ordered by `seq` everywhere (not by created_at: two status changes of a transaction
 * can share a millisecond). Both look-ups are index range scans: the batch walks
 * (dispatched_at, seq) from the oldest undispatched event, the check walks (subject, seq) over the
 * few older events of one transaction. The batch is ordered by `dispatched_at, seq`, the index's
 * own order, although dispatched_at is NULL in every row: the planner does not treat IS NULL as an
 * equality, so `ORDER BY seq` alone made it read and sort the whole backlog on every call (165 ms
 * with 300,000 undispatched events, an on-disk sort, instead of 100 rows read off the index).
 */
export const CLAIM_UNDISPATCHED = `
  WITH candidate AS MATERIALIZED (
    SELECT e.id, e.project_id, e.event_type, e.created_at, e.subject, e.seq
      FROM event e
     WHERE e.dispatched_at IS NULL
     ORDER BY e.dispatched_at, e.seq
     LIMIT $1
       FOR UPDATE SKIP LOCKED
  ),
  claimed AS MATERIALIZED (
    SELECT c.* FROM candidate c
     WHERE c.subject IS NULL
        OR NOT EXISTS (
          SELECT 1 FROM event o
           WHERE o.subject = c.subject AND o.seq < c.seq
             AND o.dispatched_at IS NULL
             AND o.project_id = c.project_id
             AND NOT EXISTS (SELECT 1 FROM candidate m WHERE m.id = o.id))
  ),
  dispatched AS (
    UPDATE event e SET dispatched_at = now() FROM claimed c WHERE e.id = c.id
  ),
  created AS (
    INSERT INTO webhook_delivery AS d (event_id, event_callback_id, subject, created_at, next_attempt_at)
    SELECT c.id, cb.id, c.subject, c.created_at, now()
      FROM claimed c
      JOIN event_callback cb ON cb.project_id = c.project_id AND cb.event_type = c.event_type AND cb.disabled_at IS NULL
    ON CONFLICT (event_id, event_callback_id) DO NOTHING
    RETURNING ${DELIVERY_COLUMNS}
  ),
  counts AS (
    SELECT (SELECT count(*) FROM candidate)::int AS "candidateEvents", (SELECT count(*) FROM claimed)::int AS "claimedEvents"
  )
  SELECT n."candidateEvents", n."claimedEvents", x.*
    FROM counts n
    LEFT JOIN LATERAL (SELECT d.*, c.seq AS "eventSeq" FROM created d JOIN claimed c ON c.id = d."eventId") x ON true
   ORDER BY x."eventSeq", x."eventCallbackId"`;
