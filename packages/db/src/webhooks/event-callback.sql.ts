/**
 * The statements of event-callback.repository.ts: registrations and their recent stats. Each is
 * one statement, so one round trip and one database transaction (data-modifying CTEs commit
 * together or not at all).
 */

/** The select list of a stats entry for table alias `s`; the bigserial id comes back as text. */
export const STAT_COLUMNS = `
  s.id::text AS id, s.event_callback_id AS "eventCallbackId", s.delivery_id AS "deliveryId",
  s.created_at AS "createdAt", s.data, s.response_status AS "responseStatus"`;

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
