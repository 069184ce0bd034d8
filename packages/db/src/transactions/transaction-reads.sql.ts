/**
 * The statements of the Syndicate-shaped reads of a project's transaction requests and attempts
 * (docs/syndicate.md). Project-scoped, newest first, paged with LIMIT/OFFSET; each list reads its
 * page and its total in one statement, so both come from one snapshot.
 *
 * Each statement has ONE place that says which transactions it reads (marked `-- which
 * transactions`): contract calls only; top-ups (kind FUNDING) are listed by the funding read.
 */

/**
 * Whether attempt `a` of transaction `t` is current (carries the transaction's status): the mined
 * one once the transaction has a block (final, or seen while its confirmations are counted), else
 * the newest of its attempts.
 */
const CURRENT = `
  CASE WHEN t.block_number IS NOT NULL THEN a.hash = t.hash
       WHEN t.mined_hash IS NOT NULL THEN a.hash = t.mined_hash
       ELSE NOT EXISTS (SELECT 1 FROM transaction_attempt n
                         WHERE n.project_id = a.project_id AND n.transaction_id = a.transaction_id
                           AND (n.created_at, n.id) > (a.created_at, a.id)) END`;

/**
 * The status an attempt's reads go by (ReadStatus): the transaction's, or MINED for a SUBMITTED
 * one whose attempt is in a block short of the chain's confirmations.
 */
const READ_STATUS = `(CASE WHEN t.status = 'SUBMITTED' AND t.mined_hash IS NOT NULL THEN 'MINED' ELSE t.status::text END)`;

/**
 * One attempt as JSON, for alias `a` of transaction `t`: its position among the transaction's
 * attempts (version) and when the next one was made (what superseded it), besides its columns.
 */
const ATTEMPT_JSON = `
  json_build_object(
    'transactionId', a.transaction_id, 'hash', a.hash, 'chainId', a.chain_id::text, 'fromAddress', a.from_address,
    'nonce', a.nonce::text, 'rawTransaction', '0x' || encode(a.raw_transaction, 'hex'), 'createdAt', a.created_at,
    'status', ${READ_STATUS}, 'blockNumber', coalesce(t.block_number, t.mined_block_number)::text, 'transactionUpdatedAt', t.updated_at,
    'current', ${CURRENT},
    'version', (SELECT count(*) FROM transaction_attempt o
                 WHERE o.project_id = a.project_id AND o.transaction_id = a.transaction_id AND (o.created_at, o.id) < (a.created_at, a.id)),
    'nextCreatedAt', (SELECT min(o.created_at) FROM transaction_attempt o
                       WHERE o.project_id = a.project_id AND o.transaction_id = a.transaction_id AND (o.created_at, o.id) > (a.created_at, a.id)))`;

/** A request as JSON, for alias `t`, with its attempts oldest first. */
const REQUEST_JSON = `
  json_build_object(
    'id', t.id, 'projectId', t.project_id, 'chainId', t.chain_id::text, 'contractAddress', t.contract_address,
    'functionSignature', t.function_signature, 'args', t.args, 'calldata', '0x' || encode(t.calldata, 'hex'),
    'valueWei', t.value_wei::text, 'status', t.status, 'createdAt', t.created_at, 'updatedAt', t.updated_at,
    'attempts', (SELECT coalesce(json_agg(${ATTEMPT_JSON} ORDER BY a.created_at, a.id), '[]'::json)
                   FROM transaction_attempt a
                  WHERE a.project_id = t.project_id AND a.transaction_id = t.id))`;

/** $1 project, $2 transaction. */
export const READ_REQUEST = `
  SELECT ${REQUEST_JSON} AS request
    FROM transaction t
   WHERE t.project_id = $1 AND t.id = $2 AND t.kind = 'CALL' -- which transactions: contract calls, not top-ups
`;

/**
 * $1 project, $2 statuses (null: all), $3 search text (null: none), $4 search as a UUID (null
 * when it is not one), $5 limit, $6 offset. Search: the transaction id, the contract address
 * (any case) or a part of the function signature.
 */
export const LIST_REQUESTS = `
  WITH matching AS NOT MATERIALIZED (
    SELECT t.project_id, t.id, t.created_at
      FROM transaction t
     WHERE t.project_id = $1 AND t.kind = 'CALL' -- which transactions: contract calls, not top-ups
       AND ($2::"TransactionStatus"[] IS NULL OR t.status = ANY($2))
       AND ($3::text IS NULL OR t.id = $4::uuid OR lower(t.contract_address) = lower($3) OR strpos(t.function_signature, $3) > 0)
  ), page AS (
    SELECT * FROM matching ORDER BY created_at DESC, id DESC LIMIT $5 OFFSET $6
  )
  SELECT (SELECT count(*) FROM matching)::int AS total,
         (SELECT coalesce(json_agg(${REQUEST_JSON} ORDER BY p.created_at DESC, p.id DESC), '[]'::json)
            FROM page p JOIN transaction t ON t.project_id = p.project_id AND t.id = p.id) AS requests`;

/**
 * $1 project, $2 classes as 'STATUS:current' texts (null: all), $3 search text (null: none), $4
 * search as a UUID (null when it is not one), $5 limit, $6 offset. Search: the attempt's hash,
 * its wallet's address (any case) or its transaction id.
 */
export const LIST_ATTEMPTS = `
  WITH matching AS NOT MATERIALIZED (
    SELECT a.id, a.project_id, a.transaction_id, a.created_at
      FROM transaction_attempt a
      JOIN transaction t ON t.project_id = a.project_id AND t.id = a.transaction_id
     WHERE a.project_id = $1 AND t.kind = 'CALL' -- which transactions: contract calls, not top-ups
       AND ($3::text IS NULL OR a.hash = lower($3) OR lower(a.from_address) = lower($3) OR a.transaction_id = $4::uuid)
       AND ($2::text[] IS NULL OR (${READ_STATUS} || ':' || (${CURRENT})::text) = ANY($2))
  ), page AS (
    SELECT * FROM matching ORDER BY created_at DESC, id DESC LIMIT $5 OFFSET $6
  )
  SELECT (SELECT count(*) FROM matching)::int AS total,
         (SELECT coalesce(json_agg(${ATTEMPT_JSON} ORDER BY p.created_at DESC, p.id DESC), '[]'::json)
            FROM page p
            JOIN transaction_attempt a ON a.id = p.id
            JOIN transaction t ON t.project_id = a.project_id AND t.id = a.transaction_id) AS attempts`;

/** $1 project: how many of its transactions are in each status. */
export const COUNT_BY_STATUS = `
  SELECT t.status, count(*)::int AS count
    FROM transaction t
   WHERE t.project_id = $1 AND t.kind = 'CALL' -- which transactions: contract calls, not top-ups
   GROUP BY t.status`;
