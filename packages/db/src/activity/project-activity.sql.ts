/**
 * The statements of project-activity.repository.ts. Each reads one project over a window that ends
 * now, in buckets of `$3` seconds from `$2` (the window's start, a bucket boundary).
 */

/** $1 project, $2 from, $3 bucket seconds: transactions accepted per bucket (the (project_id, created_at) index). */
export const ACCEPTED = `
  SELECT floor(extract(epoch FROM t.created_at - $2::timestamptz) / $3)::int AS bucket, count(*)::int AS n
    FROM transaction t
   WHERE t.project_id = $1 AND t.created_at >= $2
   GROUP BY 1`;

/**
 * $1 project, $2 from, $3 bucket seconds, $4 the earliest creation considered: transactions that
 * became CONFIRMED per bucket, with the median and 99th percentile of the time from acceptance to
 * that change. Found from the project's transactions created since $4 (the (project_id, created_at)
 * index), each one's changes by (project_id, transaction_id): a call that took longer than that to
 * confirm is not counted, which bounds the read without an index on the changes' time.
 */
export const CONFIRMED = `
  SELECT floor(extract(epoch FROM c.created_at - $2::timestamptz) / $3)::int AS bucket, count(*)::int AS n,
         percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM c.created_at - t.created_at)) AS p50,
         percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM c.created_at - t.created_at)) AS p99
    FROM transaction t
    JOIN transaction_status_change c ON c.project_id = t.project_id AND c.transaction_id = t.id AND c.status = 'CONFIRMED'
   WHERE t.project_id = $1 AND t.created_at >= $4 AND c.created_at >= $2
   GROUP BY 1`;

/** $1 project, $2 from, $3 bucket seconds: delivery attempts per bucket, and those answered 2xx. */
export const DELIVERIES = `
  SELECT floor(extract(epoch FROM s.created_at - $2::timestamptz) / $3)::int AS bucket, count(*)::int AS n,
         count(*) FILTER (WHERE s.response_status BETWEEN 200 AND 299)::int AS ok
    FROM event_callback c
    JOIN event_callback_stat s ON s.event_callback_id = c.id
   WHERE c.project_id = $1 AND s.created_at >= $2
   GROUP BY 1`;

/** $1 project: what waits now: unfinished transactions by status, and deliveries not yet made. */
export const WAITING = `
  SELECT (SELECT count(*) FROM transaction WHERE project_id = $1 AND status = 'PENDING')::int AS pending,
         (SELECT count(*) FROM transaction WHERE project_id = $1 AND status = 'SUBMITTED')::int AS submitted,
         (SELECT count(*) FROM transaction WHERE project_id = $1 AND status = 'PAUSED')::int AS paused,
         (SELECT count(*) FROM webhook_delivery d JOIN event_callback c ON c.id = d.event_callback_id
           WHERE c.project_id = $1 AND d.status = 'PENDING')::int AS "deliveriesPending",
         (SELECT count(*) FROM event WHERE project_id = $1 AND dispatched_at IS NULL)::int AS "eventsUndispatched"`;
