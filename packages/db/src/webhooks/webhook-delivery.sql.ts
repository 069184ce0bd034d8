/**
 * The statements of webhook-delivery.repository.ts: a delivery, its attempts and their outcome.
 * Each is one statement, so one round trip and one database transaction (data-modifying CTEs
 * commit together or not at all). The delivery select list is also the dispatch's.
 */

/** The select list of a delivery for table alias `d`. */
export const DELIVERY_COLUMNS = `
  d.id, d.event_id AS "eventId", d.event_callback_id AS "eventCallbackId", d.status, d.attempts,
  d.next_attempt_at AS "nextAttemptAt", d.delivered_at AS "deliveredAt", d.subject, d.created_at AS "createdAt"`;

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
 * $1 project, $2 registration, $3 delivery: the delivery goes out again now (POST …/redeliver).
 * A DELIVERED or FAILED one is PENDING again with its attempts counted from 0 (the retry schedule
 * starts over); a PENDING one keeps its count and is due now. Only a delivery of that registration
 * of that project, while the registration is active; `found`/`active` say why nothing changed.
 */
export const REDELIVER = `
  WITH target AS (
    SELECT d.id, d.event_id, d.status, c.disabled_at IS NULL AS active
      FROM webhook_delivery d
      JOIN event_callback c ON c.id = d.event_callback_id
     WHERE d.id = $3 AND d.event_callback_id = $2 AND c.project_id = $1
  ), changed AS (
    UPDATE webhook_delivery d SET
      status = 'PENDING',
      attempts = CASE WHEN d.status = 'PENDING' THEN d.attempts ELSE 0 END,
      next_attempt_at = now()
      FROM target t
     WHERE d.id = t.id AND t.active AND d.status <> 'ABANDONED'
    RETURNING d.id
  )
  SELECT t.event_id AS "eventId", t.status AS "previousStatus", t.active, EXISTS (SELECT 1 FROM changed) AS changed
    FROM target t`;
