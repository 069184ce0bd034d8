import { statusChangeAndEventCtes } from "./status-change-event";
import { TRANSACTION_COLUMNS } from "./transaction-record";

/**
 * The hand-written statements of the transaction repository. Each is one statement, so each is
 * one database transaction in one round trip: data-modifying CTEs commit together or not at all.
 */

/**
 * Inserts PENDING transactions, each with its first status change and outbox event, in one
 * statement (one commit for all): arrays $1 project, $2 id,
 * $3 chain, $4 contract, $5 function signature, $6 args (jsonb), $7 calldata, $8 value, $9 event
 * id, $10 error signatures (jsonb, null: none), and the optional request fields (null when not
 * given): $11 wallet, $12 gas limit, $13 max fee per gas, $14 expiry; $15 the gas reservation (null: none); $16 the API key
 * that sent it (null: none). An id repeated within the batch is inserted once (the first occurrence wins, the others
 * see a conflict, as with separate statements). Returns the inserted transactions' keys and
 * creation times only: the caller knows the rest, and parsing whole rows back (args, calldata) was
 * a fifth of the statement's cost in the gateway.
 */
export const CREATE_MANY = `
  WITH input AS (
    SELECT DISTINCT ON (i.project_id, i.id) i.*
      FROM unnest($1::uuid[], $2::uuid[], $3::bigint[], $4::text[], $5::text[], $6::jsonb[], $7::bytea[], $8::numeric[], $9::uuid[],
                  $10::jsonb[], $11::text[], $12::bigint[], $13::numeric[], $14::timestamptz[], $15::numeric[], $16::uuid[])
        WITH ORDINALITY AS i(project_id, id, chain_id, contract_address, function_signature, args, calldata, value_wei, event_id,
                             error_signatures, requested_from_address, requested_gas_limit, max_fee_per_gas_wei, expires_at,
                             gas_reserved_wei, api_key_id, n)
     ORDER BY i.project_id, i.id, i.n
  ),
  inserted AS (
    INSERT INTO transaction AS t
      (project_id, id, chain_id, contract_address, function_signature, args, calldata, value_wei, error_signatures,
       requested_from_address, requested_gas_limit, max_fee_per_gas_wei, expires_at, gas_reserved_wei, api_key_id)
    SELECT project_id, id, chain_id, contract_address, function_signature, args, calldata, value_wei, error_signatures,
           requested_from_address, requested_gas_limit, max_fee_per_gas_wei, expires_at, gas_reserved_wei, api_key_id FROM input
    ON CONFLICT (project_id, id) DO NOTHING
    RETURNING ${TRANSACTION_COLUMNS},
              t.created_at AS "changedAt", NULL::"TransactionStatus" AS "previousStatus", NULL::text AS reason
  ),
  changed AS (
    SELECT ins.*, input.event_id AS "eventId" FROM inserted ins JOIN input ON input.project_id = ins."projectId" AND input.id = ins.id
  ),${statusChangeAndEventCtes('c."eventId"')}
  SELECT "projectId", id, "createdAt" FROM changed`;

/**
 * Moves many transactions in one statement (one commit): arrays $1 project, $2 id, $3 expected
 * status, $4 next status, $5 fields to set (jsonb: a key that is present is set, a JSON null
 * clears it, integers as strings), $6 error, $7 reason, $8 event id, $9 the hash of an attempt to
 * mark broadcast with the move (or null). `status = expected` is what lets exactly one of two
 * racing workers move a transaction: a transaction named twice moves once, for one of the two
 * (the one whose event id comes back). A move that names another wallet than the one a bound nonce
 * belongs to, without naming a nonce, does not apply either. Returns the moved transactions' keys
 * and event ids.
 */
export const MOVE_MANY = `
  WITH input AS (
    SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::"TransactionStatus"[], $4::"TransactionStatus"[], $5::jsonb[], $6::text[], $7::text[], $8::uuid[], $9::text[])
      AS m(project_id, id, from_status, to_status, fields, error, reason, event_id, broadcast_hash)
  ),
  changed AS (
    UPDATE transaction AS t SET
      status       = m.to_status,
      from_address = CASE WHEN m.fields ? 'fromAddress' THEN m.fields ->> 'fromAddress' ELSE t.from_address END,
      nonce        = CASE WHEN m.fields ? 'nonce' THEN (m.fields ->> 'nonce')::bigint ELSE t.nonce END,
      gas_limit    = CASE WHEN m.fields ? 'gasLimit' THEN (m.fields ->> 'gasLimit')::bigint ELSE t.gas_limit END,
      hash         = CASE WHEN m.fields ? 'hash' THEN m.fields ->> 'hash' ELSE t.hash END,
      block_number = CASE WHEN m.fields ? 'blockNumber' THEN (m.fields ->> 'blockNumber')::bigint ELSE t.block_number END,
      -- The receipt's columns come together (MoveFields.receipt) or not at all.
      receipt_block_hash              = CASE WHEN m.fields ? 'receiptBlockHash' THEN m.fields ->> 'receiptBlockHash' ELSE t.receipt_block_hash END,
      receipt_gas_used                = CASE WHEN m.fields ? 'receiptBlockHash' THEN (m.fields ->> 'receiptGasUsed')::bigint ELSE t.receipt_gas_used END,
      receipt_effective_gas_price_wei = CASE WHEN m.fields ? 'receiptBlockHash' THEN (m.fields ->> 'receiptEffectiveGasPriceWei')::numeric ELSE t.receipt_effective_gas_price_wei END,
      receipt_l1_fee_wei              = CASE WHEN m.fields ? 'receiptBlockHash' THEN (m.fields ->> 'receiptL1FeeWei')::numeric ELSE t.receipt_l1_fee_wei END,
      receipt_fee_wei                 = CASE WHEN m.fields ? 'receiptBlockHash' THEN (m.fields ->> 'receiptFeeWei')::numeric ELSE t.receipt_fee_wei END,
      receipt_log_count               = CASE WHEN m.fields ? 'receiptBlockHash' THEN (m.fields ->> 'receiptLogCount')::int ELSE t.receipt_log_count END,
      error        = m.error,
      revert_data  = CASE WHEN m.fields ? 'revertData' THEN decode(substr(m.fields ->> 'revertData', 3), 'hex') ELSE t.revert_data END,
      updated_at   = now()
    FROM input m
    WHERE t.project_id = m.project_id AND t.id = m.id AND t.status = m.from_status
      -- A nonce stays with the wallet it was bound to: a move naming another wallet without a
      -- nonce was decided on a read from before the binding (another run of the same job bound
      -- it since), and would leave the row claiming that nonce for a wallet that never used it.
      AND NOT (m.fields ? 'fromAddress' AND NOT m.fields ? 'nonce' AND t.nonce IS NOT NULL
               AND t.from_address IS DISTINCT FROM m.fields ->> 'fromAddress')
    RETURNING ${TRANSACTION_COLUMNS},
              t.updated_at AS "changedAt", m.from_status AS "previousStatus", m.reason AS reason,
              m.event_id AS "eventId", m.broadcast_hash AS "broadcastHash"
  ),
  broadcast AS (
    UPDATE transaction_attempt a SET broadcast_at = now()
      FROM changed c
     WHERE a.hash = c."broadcastHash" AND a.broadcast_at IS NULL
  ),${statusChangeAndEventCtes('c."eventId"')}
  SELECT "projectId", id, "eventId" FROM changed`;

/**
 * Binds the next nonces of wallets to transactions, for many transactions in one statement:
 * arrays $1 project, $2 id, $3 wallet address, $4 the chain's pending nonce of the wallet (a
 * floor). Returns the transactions it bound.
 *
 * Locks each transaction row while it is PENDING and unbound (in key order, so concurrent batches
 * cannot deadlock), so two attempts to bind the same transaction queue up and the second finds it
 * bound (and takes no nonce); a transaction named twice is bound once. Each wallet's counter is
 * taken with one upsert for all its transactions of the batch (in key order): the first use
 * starts at the chain's pending nonce (or past the highest nonce already bound, should the
 * counter row ever be lost), every later use at `next`, or at the chain's pending nonce when the
 * chain is ahead (the key was used outside the relay); the batch's transactions of a wallet get
 * consecutive nonces in the order they were asked for. The row lock on wallet_nonce orders
 * concurrent allocations of one wallet and is held only for this statement. UNIQUE (chain_id,
 * from_address, nonce) rejects a nonce bound twice, and the whole statement with it, the
 * increments included.
 */
export const ALLOCATE_NONCES = `
  WITH input AS MATERIALIZED (
    -- Only wallets of the transaction's project; checked here, before the join below, so the
    -- planner cannot drive that join by project alone (it did: a scan of all the project's rows).
    SELECT DISTINCT ON (i.project_id, i.id) i.*
      FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::bigint[]) WITH ORDINALITY AS i(project_id, id, address, floor, n)
     WHERE EXISTS (SELECT 1 FROM wallet w WHERE w.address = i.address AND w.project_id = i.project_id)
     ORDER BY i.project_id, i.id, i.n
  ),
  target AS MATERIALIZED (
    SELECT i.n, i.project_id, i.id, i.address, i.floor, t.chain_id
      FROM input i JOIN transaction t ON t.project_id = i.project_id AND t.id = i.id
     WHERE t.status = 'PENDING' AND t.nonce IS NULL
     ORDER BY t.project_id, t.id
       FOR UPDATE OF t
  ),
  counts AS MATERIALIZED (
    SELECT chain_id, address, count(*) AS k, max(floor) AS floor FROM target GROUP BY chain_id, address
  ),
  allocated AS (
    INSERT INTO wallet_nonce AS w (chain_id, address, next)
    SELECT c.chain_id, c.address,
           -- Past the highest nonce bound so far, only when the counter row is missing (first use,
           -- or lost): a CASE branch runs only when taken, and that read walks the wallet's history.
           GREATEST(c.floor, CASE WHEN NOT EXISTS (SELECT 1 FROM wallet_nonce x WHERE x.chain_id = c.chain_id AND x.address = c.address)
                                  THEN (SELECT max(b.nonce) + 1 FROM transaction b WHERE b.chain_id = c.chain_id AND b.from_address = c.address)
                             END) + c.k
      FROM counts c
     ORDER BY c.chain_id, c.address
    ON CONFLICT (chain_id, address) DO UPDATE
      SET next = GREATEST(w.next, (SELECT c.floor FROM counts c WHERE c.chain_id = w.chain_id AND c.address = w.address))
               + (SELECT c.k FROM counts c WHERE c.chain_id = w.chain_id AND c.address = w.address),
          updated_at = now()
    RETURNING w.chain_id, w.address, w.next
  ),
  numbered AS (
    SELECT t.project_id, t.id, t.address,
           a.next - c.k + row_number() OVER (PARTITION BY t.chain_id, t.address ORDER BY t.n) - 1 AS nonce
      FROM target t
      JOIN allocated a ON a.chain_id = t.chain_id AND a.address = t.address
      JOIN counts c ON c.chain_id = t.chain_id AND c.address = t.address
  )
  UPDATE transaction AS t SET from_address = n.address, nonce = n.nonce, updated_at = now()
    FROM numbered n
   WHERE t.project_id = n.project_id AND t.id = n.id
  RETURNING t.project_id AS "projectId", t.id, t.from_address AS "fromAddress", t.nonce::text AS nonce`;

/** $1 project, $2 id, $3 wallet address: why ALLOCATE_NONCES bound nothing for this transaction. */
export const BINDING = `
  SELECT t.from_address AS "fromAddress", t.nonce::text AS nonce,
         EXISTS (SELECT 1 FROM wallet w WHERE w.address = $3 AND w.project_id = $1) AS "walletOfProject"
    FROM transaction t
   WHERE t.project_id = $1 AND t.id = $2`;

/** Arrays $1 project, $2 id: those of the transactions that exist. */
export const FIND_MANY = `
  SELECT ${TRANSACTION_COLUMNS}
    FROM unnest($1::uuid[], $2::uuid[]) AS k(project_id, id)
    JOIN transaction t ON t.project_id = k.project_id AND t.id = k.id`;

/**
 * $1 statuses, $2 cutoff, $3 limit, and optionally where the previous page ended: $4 updated_at,
 * $5 project, $6 id (all null for the first page). Served by the (status, updated_at) index.
 */
export const FIND_UNFINISHED = `
  SELECT ${TRANSACTION_COLUMNS} FROM transaction t
   WHERE t.status = ANY ($1::"TransactionStatus"[]) AND t.updated_at < $2
     AND ($4::timestamptz IS NULL OR (t.updated_at, t.project_id, t.id) > ($4::timestamptz, $5::uuid, $6::uuid))
   ORDER BY t.updated_at, t.project_id, t.id
   LIMIT $3`;

/**
 * The calls a wallet's transactions make at nonces $3 up to (not including) $4 on chain $1, wallet
 * $2 ($4 null: every nonce bound from $3 on), but transaction ($5 project, $6 id), in nonce order: those that use or will use their
 * nonce, so not INVALID, FAILED, CANCELLED or EXPIRED ones (a filler, or the cancel, takes theirs). Each with the gas limit of its
 * signed attempts (replacements keep it), null while it has none. Served by UNIQUE (chain_id,
 * from_address, nonce).
 */
export const CALLS_AHEAD = `
  SELECT t.nonce::text AS nonce, t.contract_address AS "to", t.calldata, t.value_wei::text AS "valueWei",
         (SELECT max(a.gas_limit)::text FROM transaction_attempt a
           WHERE a.project_id = t.project_id AND a.transaction_id = t.id) AS "gasLimit"
    FROM transaction t
   WHERE t.chain_id = $1 AND t.from_address = $2 AND t.nonce >= $3 AND ($4::bigint IS NULL OR t.nonce < $4)
     AND t.status NOT IN ('INVALID', 'FAILED', 'CANCELLED', 'EXPIRED') AND NOT (t.project_id = $5 AND t.id = $6)
   ORDER BY t.nonce`;

/** $1 project, $2 id, $3 hash, $4 block (both null: none mined): only while SUBMITTED, only a change. */
export const NOTE_MINED = `
  UPDATE transaction SET mined_hash = $3, mined_block_number = $4::bigint
   WHERE project_id = $1 AND id = $2 AND status = 'SUBMITTED'
     AND (mined_hash IS DISTINCT FROM $3 OR mined_block_number IS DISTINCT FROM $4::bigint)`;
