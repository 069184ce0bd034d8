import { statusChangeAndEventCtes } from "../transactions/status-change-event";
import { TRANSACTION_COLUMNS } from "../transactions/transaction-record";

/**
 * $1 chain, $2 wallet address (as wallet.address stores it), $3 its balance (wei), $4 the block the
 * balance was read at, $5 the new transaction's id, $6 its event's id.
 *
 * Inserts a PENDING top-up (kind FUNDING) of the wallet, with its first status change and outbox
 * event, when its project has managed gas on the chain and the balance is below the target: a
 * transfer of (target − balance) from the funding wallet, a transaction of the funding wallet's
 * project that names the project it funds. Nothing when:
 * - a top-up of the wallet on this chain is still unfinished (the partial unique index
 *   transaction_open_top_up_key: ON CONFLICT DO NOTHING), whoever decided it;
 * - the balance was read before the block a top-up of the wallet was mined in: it does not count
 *   that top-up, and a second one would be sent for the same shortfall;
 * - the wallet is the funding wallet itself.
 * Returns the inserted transaction's key.
 */
export const INSERT_TOP_UP = `
  WITH decision AS MATERIALIZED (
    SELECT f.project_id, pf.project_id AS funded_project_id, pf.funding_address, pf.target_balance_wei - $3::numeric AS amount
      FROM wallet w
      JOIN project_funding pf ON pf.project_id = w.project_id AND pf.chain_id = $1::bigint
      JOIN wallet f ON f.address = pf.funding_address
     WHERE w.address = $2 AND pf.funding_address <> $2 AND pf.target_balance_wei > $3::numeric
       AND NOT EXISTS (
         SELECT 1 FROM transaction p
          WHERE p.funded_project_id = w.project_id AND p.kind = 'FUNDING' AND p.chain_id = $1::bigint
            AND p.contract_address = $2 AND p.block_number > $4::bigint)
  ),
  inserted AS (
    INSERT INTO transaction AS t
      (project_id, id, chain_id, contract_address, function_signature, args, calldata, value_wei, from_address, kind, funded_project_id)
    SELECT d.project_id, $5::uuid, $1::bigint, $2, '', '[]'::jsonb, '\\x'::bytea, d.amount, d.funding_address, 'FUNDING', d.funded_project_id
      FROM decision d
    ON CONFLICT DO NOTHING
    RETURNING ${TRANSACTION_COLUMNS},
              t.created_at AS "changedAt", NULL::"TransactionStatus" AS "previousStatus", NULL::text AS reason
  ),
  changed AS (
    SELECT ins.*, $6::uuid AS "eventId" FROM inserted ins
  ),${statusChangeAndEventCtes('c."eventId"')}
  SELECT "projectId", id, "valueWei", "fromAddress" FROM changed`;

/**
 * $1 funded project, $2 limit, $3 offset: the project's top-ups, newest first, with their total;
 * the signed bytes are those of the attempt whose hash the transaction carries. One statement, so
 * the page and the total are of one moment.
 */
export const LIST_TOP_UPS = `
  SELECT (SELECT count(*) FROM transaction c WHERE c.funded_project_id = $1 AND c.kind = 'FUNDING')::int AS total,
         coalesce((SELECT json_agg(p ORDER BY p."createdAt" DESC, p.id DESC) FROM (
           SELECT t.id, t.created_at AS "createdAt", t.updated_at AS "updatedAt", t.chain_id::text AS "chainId",
                  t.funded_project_id AS "projectId", t.from_address AS "fromAddress", t.contract_address AS "toAddress",
                  t.value_wei::text AS amount, t.hash, t.block_number::text AS "blockNumber", t.status,
                  (SELECT encode(a.raw_transaction, 'hex') FROM transaction_attempt a
                    WHERE a.project_id = t.project_id AND a.transaction_id = t.id AND a.hash = t.hash) AS "signedTxn"
             FROM transaction t
            WHERE t.funded_project_id = $1 AND t.kind = 'FUNDING'
            ORDER BY t.created_at DESC, t.id DESC
            LIMIT $2 OFFSET $3) p), '[]'::json) AS page`;
