import { DELIVERY_COLUMNS, STAT_COLUMNS } from "./webhook-records";

/**
 * The hand-written statements of webhook dispatch and delivery: each is one statement, so one
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

/**
 * $1 delivery ids (uuid[]): each delivery, its event and its registration (sealed secrets
 * included: the current one, and the one a rotation retired with the end of its grace period),
 * and `heldBack`: whether a PENDING delivery of an older event (lower `seq`) with the
 * same subject to the same registration exists, which must reach the receiver first. FAILED and
 * ABANDONED deliveries hold nothing back; a delivery without a subject is never held back. The
 * check walks (event_callback_id, subject) of webhook_delivery, a transaction's few deliveries to
 * one registration, and looks up the event of each PENDING one by its key: no created_at bound,
 * which would be wrong where created_at ties or runs against commit order. `heldBackUntil`: the
 * next attempt of the oldest delivery holding it back (null when none is): nothing behind it can
 * go before it is final. Not the earliest of all: a middle one, itself held back and never tried,
 * keeps its dispatch time, and a third event then polled every 250 ms while the first waited
 * hours for its retry.
 */
export const FIND_FOR_DELIVERY = `
  SELECT ${DELIVERY_COLUMNS},
         e.event_type AS "eventType", e.project_id AS "projectId", e.payload, e.created_at AS "eventCreatedAt",
         cb.callback_url AS "callbackUrl", cb.encrypted_secret AS "encryptedSecret", cb.created_at AS "callbackCreatedAt",
         cb.previous_encrypted_secret AS "previousEncryptedSecret", cb.previous_secret_expires_at AS "previousSecretExpiresAt",
         cb.disabled_at AS "disabledAt", cb.disabled_reason AS "disabledReason",
         h.holders > 0 AS "heldBack", h.due AS "heldBackUntil"
    FROM webhook_delivery d
    JOIN event e ON e.id = d.event_id
    JOIN event_callback cb ON cb.id = d.event_callback_id
    CROSS JOIN LATERAL (
      SELECT count(*) AS holders, (array_agg(o.next_attempt_at ORDER BY oe.seq))[1] AS due
        FROM webhook_delivery o JOIN event oe ON oe.id = o.event_id
       WHERE d.subject IS NOT NULL
         AND o.event_callback_id = d.event_callback_id AND o.subject = d.subject AND o.status = 'PENDING'
         AND oe.seq < e.seq
    ) h
   WHERE d.id = ANY($1::uuid[])`;

/**
 * Attempts, one per element of the arrays: $1 delivery ids (distinct), $2 next statuses, $3 next
 * attempt times (null unless PENDING), $4 stats data (jsonb), $5 response statuses. Writes each
 * attempt's stats entry and counts it whatever the delivery's status; moves a delivery only while
 * it is PENDING (a late duplicate attempt must not undo DELIVERED or ABANDONED). The row locks of
 * `current`, taken in id order so that concurrent batches cannot deadlock, order concurrent
 * attempts at one delivery. One statement: every attempt of the batch commits, or none.
 */
export const RECORD_ATTEMPTS = `
  WITH input AS (
    SELECT * FROM unnest($1::uuid[], $2::"WebhookDeliveryStatus"[], $3::timestamptz[], $4::jsonb[], $5::int[])
      AS i(id, next_status, next_attempt_at, data, response_status)
  ),
  current AS (
    SELECT d.id, d.status FROM webhook_delivery d WHERE d.id IN (SELECT id FROM input) ORDER BY d.id FOR UPDATE
  ),
  updated AS (
    UPDATE webhook_delivery AS d SET
      attempts        = d.attempts + 1,
      status          = CASE WHEN c.status = 'PENDING' THEN i.next_status ELSE d.status END,
      next_attempt_at = CASE WHEN c.status = 'PENDING' THEN i.next_attempt_at ELSE d.next_attempt_at END,
      delivered_at    = CASE WHEN c.status = 'PENDING' AND i.next_status = 'DELIVERED' THEN now() ELSE d.delivered_at END
      FROM current c JOIN input i ON i.id = c.id
     WHERE d.id = c.id
    RETURNING ${DELIVERY_COLUMNS}, c.status = 'PENDING' AS applied
  ),
  stat AS (
    INSERT INTO event_callback_stat (event_callback_id, delivery_id, data, response_status)
    SELECT u."eventCallbackId", u.id,
           i.data || jsonb_build_object('eventId', u."eventId", 'deliveryId', u.id, 'attempt', u.attempts),
           i.response_status
      FROM updated u JOIN input i ON i.id = u.id
  )
  SELECT * FROM updated`;

/** $1 delivery, $2 final status: PENDING → $2, without an attempt. */
export const FINISH_DELIVERY = `
  UPDATE webhook_delivery SET
    status = $2::"WebhookDeliveryStatus",
    next_attempt_at = NULL,
    delivered_at = CASE WHEN $2::"WebhookDeliveryStatus" = 'DELIVERED' THEN now() ELSE delivered_at END
  WHERE id = $1 AND status = 'PENDING'`;

/** $1 due before, $2 limit: PENDING deliveries whose attempt is due, for the reconciler. */
export const FIND_DUE = `
  SELECT ${DELIVERY_COLUMNS} FROM webhook_delivery d
   WHERE d.status = 'PENDING' AND d.next_attempt_at <= $1
     AND ($3::timestamptz IS NULL OR (d.next_attempt_at, d.id) > ($3::timestamptz, $4::uuid))
   ORDER BY d.next_attempt_at, d.id
   LIMIT $2`;

/**
 * $1 project: its row, locked until the transaction ends (registrations are counted under it).
 * NO KEY UPDATE: it serialises registrations of the project, and leaves alone the key-share locks
 * every insert that references the project takes (its transactions, events, signatures), which
 * FOR UPDATE would make wait for the registration.
 */
export const LOCK_PROJECT = `SELECT 1 FROM project WHERE id = $1 FOR NO KEY UPDATE`;

/**
 * $1 id, $2 project, $3 callback URL, $4 event type, $5 sealed secret, $6 the most active
 * registrations the project may have (null: no limit). Inserts nothing at the limit. Run after
 * LOCK_PROJECT in the same transaction, so the count sees every registration committed before.
 */
export const CREATE_CALLBACK = `
  INSERT INTO event_callback (id, project_id, callback_url, event_type, encrypted_secret)
  SELECT $1, $2, $3, $4::"EventType", $5
   WHERE $6::int IS NULL
      OR (SELECT count(*) FROM event_callback c WHERE c.project_id = $2 AND c.disabled_at IS NULL) < $6::int
  RETURNING id, project_id AS "projectId", callback_url AS "callbackUrl", event_type AS "eventType",
            created_at AS "createdAt", disabled_at AS "disabledAt", disabled_reason AS "disabledReason"`;

/**
 * $1 registration, $2 reason, $3 whether to replace the reason of an already disabled one (a
 * delete after a 410). Disables it and abandons its PENDING deliveries in the same statement, so
 * no retry goes to a registration that is gone. The deliveries are locked in id order first, the
 * order RECORD_ATTEMPTS locks them in: updated in the plan's order (an index on subject, a table
 * scan), a disable and a batch of attempts to the same registration could each hold a row the
 * other waits for, and Postgres would abort one (a batch's stats entries lost, its receivers
 * POSTed to again; or the DELETE answered 500).
 */
export const DISABLE_CALLBACK = `
  WITH disabled AS (
    UPDATE event_callback SET disabled_at = COALESCE(disabled_at, now()), disabled_reason = $2
     WHERE id = $1 AND (disabled_at IS NULL OR ($3 AND disabled_reason IS DISTINCT FROM $2))
    RETURNING id
  ),
  locked AS (
    SELECT o.id FROM webhook_delivery o JOIN disabled x ON o.event_callback_id = x.id
     WHERE o.status = 'PENDING'
     ORDER BY o.id
       FOR UPDATE OF o
  ),
  abandoned AS (
    UPDATE webhook_delivery d SET status = 'ABANDONED', next_attempt_at = NULL
      FROM locked l
     WHERE d.id = l.id AND d.status = 'PENDING'
  )
  SELECT id FROM disabled`;

/** $1 registration ids, $2 entries per registration: the newest stats of each, newest first. */
export const RECENT_STATS = `
  SELECT ${STAT_COLUMNS}
    FROM unnest($1::uuid[]) AS cb(id)
    CROSS JOIN LATERAL (
      SELECT * FROM event_callback_stat x WHERE x.event_callback_id = cb.id ORDER BY x.id DESC LIMIT $2
    ) s
   ORDER BY s.event_callback_id, s.id DESC`;

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
