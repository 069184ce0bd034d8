/**
 * The outbox row of a WalletBalanceLow, as docs/webhooks.md ("Payloads") specifies the body:
 * `{id, eventType, projectId, createdAt, data}`, wei amounts as decimal strings and the chain id as
 * a number (the same conventions as TransactionStatusChangePayload).
 */
export interface WalletBalanceLowPayload {
  id: string;
  eventType: "WalletBalanceLow";
  projectId: string;
  /** ISO 8601 in UTC with milliseconds, the same instant as the balance check. */
  createdAt: string;
  data: {
    walletAddress: string;
    chainId: number;
    balance: string;
    threshold: string;
  };
}

/**
 * $1 chain id, $2 address (as wallet.address stores it), $3 balance (wei), $4 threshold (wei),
 * $5 the block the balance was read at.
 *
 * Records the check and, when the state turns low (from not low, or from no state), writes one
 * WalletBalanceLow event per project owning the wallet, in the same statement. A check of an
 * older block than the stored one is not applied: checks after sends and scheduled ones run
 * concurrently, and one that read earlier but arrives later would otherwise flip the state back
 * (low → not low → low: a second event for one crossing, or a crossing missed).
 *
 * `prior` locks the existing state row; in READ COMMITTED, a lock that waited for a concurrent
 * check returns that check's committed row, so of two concurrent checks only one sees the
 * crossing. Without a row, the insert decides: of two first checks racing, the one whose insert
 * loses records nothing (its observation is as old as the winner's; the next check counts).
 * The event's created_at is the stored checked_at, so the payload's createdAt is the same instant.
 */
export const RECORD_BALANCE = `
  WITH prior AS MATERIALIZED (
    SELECT s.low FROM wallet_balance_state s WHERE s.chain_id = $1::bigint AND s.address = $2 FOR UPDATE
  ),
  updated AS (
    UPDATE wallet_balance_state AS s
       SET low = $3::numeric < $4::numeric, balance_wei = $3::numeric, block_number = $5::bigint, checked_at = now()
      FROM prior p
     WHERE s.chain_id = $1::bigint AND s.address = $2
       AND (s.block_number IS NULL OR s.block_number <= $5::bigint)
    RETURNING s.low, p.low AS "wasLow", s.checked_at AS "checkedAt"
  ),
  inserted AS (
    INSERT INTO wallet_balance_state AS s (chain_id, address, low, balance_wei, block_number, checked_at)
    SELECT $1::bigint, $2, $3::numeric < $4::numeric, $3::numeric, $5::bigint, now()
     WHERE NOT EXISTS (SELECT 1 FROM prior)
    ON CONFLICT (chain_id, address) DO NOTHING
    RETURNING s.low, false AS "wasLow", s.checked_at AS "checkedAt"
  ),
  crossed AS MATERIALIZED (
    SELECT x."checkedAt" FROM (SELECT * FROM updated UNION ALL SELECT * FROM inserted) x
     WHERE x.low AND NOT x."wasLow"
  ),
  owner AS MATERIALIZED (
    SELECT gen_random_uuid() AS id, w.project_id, w.address, c."checkedAt"
      FROM crossed c JOIN wallet w ON w.address = $2
  ),
  outbox AS (
    INSERT INTO event (id, project_id, event_type, payload, created_at)
    SELECT o.id, o.project_id, 'WalletBalanceLow'::"EventType",
           jsonb_build_object(
             'id', o.id,
             'eventType', 'WalletBalanceLow',
             'projectId', o.project_id,
             'createdAt', to_char(o."checkedAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'data', jsonb_build_object(
               'walletAddress', o.address,
               'chainId', $1::bigint,
               'balance', $3::numeric::text,
               'threshold', $4::numeric::text)),
           o."checkedAt"
      FROM owner o
  )
  SELECT EXISTS (SELECT 1 FROM crossed) AS "crossedBelow"`;
