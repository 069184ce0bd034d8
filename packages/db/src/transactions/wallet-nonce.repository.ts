import type { Sql } from "../client";

/** A wallet's nonce counter on one chain: the next nonce Postgres hands out. */
export interface WalletNonceCounter {
  chainId: bigint;
  address: string;
  next: bigint;
}

/**
 * The wallets whose counters are worth comparing with the chain: those with an unfinished
 * transaction that holds a nonce (served by the (status, updated_at) index; few rows in a healthy
 * relay), and those that handed out a nonce within the window. A wallet idle for longer has nothing
 * in flight to unblock; its counter is checked again at its next allocation (the chain's pending
 * nonce is a floor there). Paged in (chain, address) order after `after`: a run checks one page,
 * the next run the page after it (createSweep), so every wallet is reached however many there are.
 */
const TO_RECONCILE = `
  WITH active AS (
    SELECT DISTINCT t.chain_id, t.from_address AS address
      FROM transaction t
     WHERE t.status = ANY ('{PENDING,SUBMITTED,PAUSED}'::"TransactionStatus"[]) AND t.nonce IS NOT NULL
  )
  SELECT w.chain_id::text AS "chainId", w.address, w.next::text AS next
    FROM wallet_nonce w
   WHERE (w.updated_at > now() - make_interval(secs => $1::double precision / 1000)
          OR (w.chain_id, w.address) IN (SELECT chain_id, address FROM active))
     AND ($3::bigint IS NULL OR (w.chain_id, w.address) > ($3::bigint, $4::text))
   ORDER BY w.chain_id, w.address
   LIMIT $2`;

/**
 * Raises a counter to the chain's pending nonce when the chain is ahead (the key sent outside the
 * relay). Never lowers it: a nonce below `next` may be bound to a transaction. Returns the value
 * it had when it was raised, null when it was not behind.
 */
const RAISE = `
  UPDATE wallet_nonce w SET next = $3::bigint, updated_at = now()
    FROM (SELECT next FROM wallet_nonce WHERE chain_id = $1 AND address = $2 FOR UPDATE) before
   WHERE w.chain_id = $1 AND w.address = $2 AND w.next < $3::bigint
  RETURNING before.next::text AS previous`;

export function createWalletNonceRepository(sql: Sql) {
  return {
    toReconcile: async (options: { activeWithinMs: number; limit: number; after?: Pick<WalletNonceCounter, "chainId" | "address"> }): Promise<WalletNonceCounter[]> => {
      const { after } = options;
      const { rows } = await sql.query<{ chainId: string; address: string; next: string }>(TO_RECONCILE, [
        options.activeWithinMs,
        options.limit,
        after?.chainId.toString() ?? null,
        after?.address ?? null,
      ]);
      return rows.map((r) => ({ chainId: BigInt(r.chainId), address: r.address, next: BigInt(r.next) }));
    },
    raiseTo: async (chainId: bigint, address: string, next: bigint): Promise<bigint | null> => {
      const { rows } = await sql.query<{ previous: string }>(RAISE, [chainId.toString(), address, next.toString()]);
      return rows[0] ? BigInt(rows[0].previous) : null;
    },
  };
}

export type WalletNonceRepository = ReturnType<typeof createWalletNonceRepository>;
