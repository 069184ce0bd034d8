/**
 * The statements of webhook-history.repository.ts: pruning events, deliveries and registrations
 * that are done with. Each is one statement, so one round trip and one database transaction
 * (data-modifying CTEs commit together or not at all).
 */

/**
 * $1 cut-off, $2 most events, $3/$4 the (dispatched_at, seq) of the last event the previous call
 * looked at (null: from the oldest). Deletes up to $2 events dispatched before the cut-off, each
 * with its deliveries and their stats entries, unless one of its deliveries is still PENDING
 * (retrying: it goes in a later run, once that delivery is final). Oldest first, on the
 * (dispatched_at, seq) index, after the cursor: events kept for a retrying delivery are passed
 * over, not read again by every call. Events another statement holds are skipped. One
 * statement: an event goes with all of its history or not at all. Returns how many of each went,
 * how many events were looked at (a full batch means more may be waiting) and the last one's key.
 */
export const PRUNE_HISTORY = `
  WITH old AS MATERIALIZED (
    SELECT e.id, e.dispatched_at, e.seq FROM event e
     WHERE e.dispatched_at < $1
       AND ($3::timestamptz IS NULL OR (e.dispatched_at, e.seq) > ($3::timestamptz, $4::bigint))
     ORDER BY e.dispatched_at, e.seq
     LIMIT $2
       FOR UPDATE SKIP LOCKED
  ),
  gone AS MATERIALIZED (
    SELECT o.id FROM old o
     WHERE NOT EXISTS (SELECT 1 FROM webhook_delivery d WHERE d.event_id = o.id AND d.status = 'PENDING')
  ),
  deliveries AS MATERIALIZED (
    SELECT d.id FROM webhook_delivery d JOIN gone g ON d.event_id = g.id
  ),
  stats AS (
    DELETE FROM event_callback_stat s USING deliveries x WHERE s.delivery_id = x.id RETURNING 1
  ),
  deleted_deliveries AS (
    DELETE FROM webhook_delivery d USING deliveries x WHERE d.id = x.id RETURNING 1
  ),
  deleted_events AS (
    DELETE FROM event e USING gone g WHERE e.id = g.id RETURNING 1
  ),
  last AS (
    SELECT o.dispatched_at, o.seq FROM old o ORDER BY o.dispatched_at DESC, o.seq DESC LIMIT 1
  )
  SELECT (SELECT count(*) FROM old)::int AS "looked",
         (SELECT count(*) FROM deleted_events)::int AS "events",
         (SELECT count(*) FROM deleted_deliveries)::int AS "deliveries",
         (SELECT count(*) FROM stats)::int AS "stats",
         (SELECT dispatched_at FROM last) AS "lastDispatchedAt",
         (SELECT seq::text FROM last) AS "lastSeq"`;

/**
 * $1 cut-off, $2 most rows: registrations disabled before the cut-off (deleted by the project, or
 * disabled by a 410) that nothing points at any more (their deliveries and stats entries pruned
 * with their events, PRUNE_HISTORY), deleted for good: a 410-disabled one is listed with why until
 * then. No new delivery or stats entry can come to a disabled registration (the dispatch takes
 * active ones only, its PENDING deliveries were abandoned when it was disabled). Returns how many
 * went.
 */
export const PRUNE_DISABLED_CALLBACKS = `
  WITH gone AS (
    SELECT c.id FROM event_callback c
     WHERE c.disabled_at < $1
       AND NOT EXISTS (SELECT 1 FROM webhook_delivery d WHERE d.event_callback_id = c.id)
       AND NOT EXISTS (SELECT 1 FROM event_callback_stat s WHERE s.event_callback_id = c.id)
     ORDER BY c.disabled_at
     LIMIT $2
       FOR UPDATE SKIP LOCKED
  )
  DELETE FROM event_callback c USING gone g WHERE c.id = g.id`;
