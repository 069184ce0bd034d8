/**
 * The statements of queue-depth.repository.ts: the per-minute sample of each project's waiting
 * work (the console's queue depth chart) and its pruning.
 */

/**
 * $1 the minute sampled. Marks the minute, and only if this call marked it (another replica's
 * sampler may have run this minute), writes each project's unfinished transactions (the
 * (status, updated_at) index) and deliveries still to make (the (status, next_attempt_at) index);
 * projects with neither get no row. Answers how many projects it wrote, or null when the minute
 * was already sampled.
 */
export const SAMPLE = `
  WITH marked AS (
    INSERT INTO queue_depth_minute (minute) VALUES ($1) ON CONFLICT (minute) DO NOTHING RETURNING minute
  ),
  tx AS (
    SELECT project_id, count(*)::int AS n FROM transaction
     WHERE status IN ('PENDING', 'SUBMITTED', 'PAUSED') AND EXISTS (SELECT 1 FROM marked)
     GROUP BY project_id
  ),
  dl AS (
    SELECT c.project_id, count(*)::int AS n
      FROM webhook_delivery d JOIN event_callback c ON c.id = d.event_callback_id
     WHERE d.status = 'PENDING' AND EXISTS (SELECT 1 FROM marked)
     GROUP BY c.project_id
  ),
  written AS (
    INSERT INTO queue_depth_sample (project_id, minute, transactions, deliveries)
    SELECT COALESCE(tx.project_id, dl.project_id), m.minute, COALESCE(tx.n, 0), COALESCE(dl.n, 0)
      FROM marked m CROSS JOIN (tx FULL JOIN dl ON dl.project_id = tx.project_id)
    RETURNING 1
  )
  SELECT CASE WHEN EXISTS (SELECT 1 FROM marked) THEN (SELECT count(*)::int FROM written) END AS projects`;

/** $1 the oldest minute kept: samples and marks before it are deleted. */
export const PRUNE_SAMPLES = `DELETE FROM queue_depth_sample WHERE minute < $1`;
export const PRUNE_MINUTES = `DELETE FROM queue_depth_minute WHERE minute < $1`;

/**
 * $1 project, $2 from, $3 bucket seconds: per bucket, the most work the project had waiting at a
 * sampled minute (0 at a minute sampled without a row of it); a bucket without a sampled minute
 * has no row.
 */
export const QUEUE_DEPTHS = `
  SELECT floor(extract(epoch FROM m.minute - $2::timestamptz) / $3)::int AS bucket,
         max(COALESCE(s.transactions, 0))::int AS transactions, max(COALESCE(s.deliveries, 0))::int AS deliveries
    FROM queue_depth_minute m
    LEFT JOIN queue_depth_sample s ON s.minute = m.minute AND s.project_id = $1
   WHERE m.minute >= $2
   GROUP BY 1`;
