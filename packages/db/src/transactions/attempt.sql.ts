/**
 * The statements of a transaction's signed attempts (hand-written: they run on every worker step,
 * where Prisma cost four times the CPU per query, docs/benchmarks.md).
 */

/** The select list of an attempt, for table alias `a`: integers wider than JS numbers as text. */
export const ATTEMPT_COLUMNS = `
  a.id, a.project_id AS "projectId", a.transaction_id AS "transactionId", a.chain_id::text AS "chainId",
  a.from_address AS "fromAddress", a.nonce::text AS nonce, a.hash, a.raw_transaction AS "rawTransaction", a.type,
  a.gas_limit::text AS "gasLimit", a.max_fee_per_gas_wei::text AS "maxFeePerGasWei",
  a.max_priority_fee_per_gas_wei::text AS "maxPriorityFeePerGasWei", a.gas_price_wei::text AS "gasPriceWei",
  a.created_at AS "createdAt", a.broadcast_at AS "broadcastAt", a.cancel`;

/** Arrays $1 project, $2 transaction: the attempts of each, oldest first. */
export const ATTEMPTS_OF = `
  SELECT ${ATTEMPT_COLUMNS}
    FROM transaction_attempt a
    JOIN unnest($1::uuid[], $2::uuid[]) AS k(project_id, transaction_id)
      ON a.project_id = k.project_id AND a.transaction_id = k.transaction_id
   ORDER BY a.created_at, a.id`;

/**
 * Attempts (arrays, one element each: $1 project … $12 gas price, $13 cancel), in one statement
 * and one commit; one whose hash is stored already (the same signed bytes: signatures are
 * deterministic) is skipped, and its caller reads the stored one. An attempt of the call is not
 * stored once a cancel was asked for: the transaction row is locked and read (FOR UPDATE), so a
 * cancel request (which sets cancel_requested_at under the same lock) either comes first and this
 * inserts nothing, or waits for this commit and then sees the attempt (docs/architecture.md).
 */
export const RECORD_ATTEMPTS = `
  INSERT INTO transaction_attempt AS a
    (project_id, transaction_id, chain_id, from_address, nonce, hash, raw_transaction, type, gas_limit,
     max_fee_per_gas_wei, max_priority_fee_per_gas_wei, gas_price_wei, cancel)
  SELECT i.* FROM unnest($1::uuid[], $2::uuid[], $3::bigint[], $4::text[], $5::bigint[], $6::text[], $7::bytea[], $8::int[], $9::bigint[],
                       $10::numeric[], $11::numeric[], $12::numeric[], $13::boolean[])
           AS i(project_id, transaction_id, chain_id, from_address, nonce, hash, raw_transaction, type, gas_limit,
                max_fee_per_gas_wei, max_priority_fee_per_gas_wei, gas_price_wei, cancel)
    JOIN transaction t ON t.project_id = i.project_id AND t.id = i.transaction_id
   WHERE t.cancel_requested_at IS NULL OR i.cancel
   ORDER BY t.project_id, t.id
     FOR UPDATE OF t
  ON CONFLICT (hash) DO NOTHING
  RETURNING ${ATTEMPT_COLUMNS}`;

export const ATTEMPT_BY_HASH = `SELECT ${ATTEMPT_COLUMNS} FROM transaction_attempt a WHERE a.hash = $1`;

/** The first broadcast of an attempt; no row when unknown or already marked. */
export const MARK_BROADCAST = `UPDATE transaction_attempt SET broadcast_at = now() WHERE hash = $1 AND broadcast_at IS NULL`;

/**
 * $1 chain, $2 hashes (lower case) of a block's transactions: the SUBMITTED transactions of the
 * chain one of whose attempts is among them, one row each (the block follower's match, by the
 * unique index on hash).
 */
export const SUBMITTED_BY_ATTEMPT_HASH = `
  SELECT DISTINCT a.project_id AS "projectId", a.transaction_id AS "transactionId"
    FROM transaction_attempt a
    JOIN transaction t ON t.project_id = a.project_id AND t.id = a.transaction_id
   WHERE a.hash = ANY($2::text[]) AND a.chain_id = $1 AND t.status = 'SUBMITTED'`;

/**
 * Whether any transaction on the chain is PENDING or SUBMITTED: what a chain's block follower has
 * to follow, now or once it is broadcast.
 */
export const ANY_IN_FLIGHT_ON_CHAIN = `
  SELECT EXISTS (SELECT 1 FROM transaction WHERE chain_id = $1 AND status IN ('PENDING', 'SUBMITTED')) AS "any"`;
