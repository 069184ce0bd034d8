import { UNFINISHED_STATUSES } from "@relay/lifecycle";
import type { SqlPool } from "../client";
import { inTransaction } from "../in-transaction";
import { insertTransactions, type CreateResult, type NewTransaction } from "../transactions/transaction-insert";

/** What a wallet spent on a chain in the last 24 hours: value sent or on its way, fees paid or reserved. */
export interface WalletSpendRecord {
  address: string;
  valueWei: bigint;
  gasWei: bigint;
}

/** Statuses whose value did or may still leave the wallet: not INVALID, FAILED, CANCELLED, EXPIRED, REVERTED. */
const VALUE_STATUSES = [...UNFINISHED_STATUSES, "CONFIRMED"];

/**
 * Takes the spend locks of wallets $2 on chain $1, in address order (so two sends locking the same
 * wallets cannot deadlock), until the end of the database transaction.
 */
const LOCK_WALLETS = `
  SELECT count(pg_advisory_xact_lock(hashtextextended('wallet-spend:' || $1::text || ':' || lower(s.address), 0)))
    FROM (SELECT a AS address FROM unnest($2::text[]) a ORDER BY lower(a)) s`;

/**
 * Each wallet of $2 on chain $1: the value of its transactions created in the last 24 hours that
 * moved or may still move value ($3 statuses), and their fees: the receipt's for a final one (0
 * when it paid none), the reservation for an unfinished one ($4 statuses). A transaction counts
 * for the wallet that sends it, or for the one the request bound it to while no nonce is bound.
 */
const WALLET_SPEND = `
  WITH spent AS (
    SELECT t.from_address AS address, t.status, t.value_wei, t.gas_reserved_wei, t.receipt_fee_wei
      FROM transaction t
     WHERE t.chain_id = $1 AND t.from_address = ANY ($2::text[]) AND t.created_at > now() - interval '24 hours'
    UNION ALL
    SELECT t.requested_from_address, t.status, t.value_wei, t.gas_reserved_wei, t.receipt_fee_wei
      FROM transaction t
     WHERE t.chain_id = $1 AND t.from_address IS NULL AND t.requested_from_address = ANY ($2::text[]) AND t.created_at > now() - interval '24 hours'
  )
  SELECT w.address,
         COALESCE(sum(s.value_wei) FILTER (WHERE s.status::text = ANY ($3::text[])), 0)::text AS "valueWei",
         COALESCE(sum(CASE WHEN s.status::text = ANY ($4::text[]) THEN COALESCE(s.gas_reserved_wei, 0) ELSE COALESCE(s.receipt_fee_wei, 0) END), 0)::text AS "gasWei"
    FROM unnest($2::text[]) AS w(address)
    LEFT JOIN spent s ON s.address = w.address
   GROUP BY w.address`;

export type GuardedCreateResult = (CreateResult & { fromAddress?: string }) | { refused: string };

/**
 * Sends that a project's daily spend limits guard (docs/policies.md): the check and the INSERT in
 * one database transaction, under a lock per wallet, so concurrent sends cannot overspend a
 * wallet together. `decide` sees the candidate wallets' spend and picks the one the transaction
 * goes from, or refuses; a refusal writes nothing. The INSERT is the same statement as every
 * other send's (insertTransactions), with the chosen wallet as the transaction's requested one.
 */
export function createSpendGuard(pool: SqlPool) {
  const spendOf = async (sql: Pick<SqlPool, "query">, chainId: bigint, wallets: readonly string[]): Promise<WalletSpendRecord[]> => {
    const { rows } = await sql.query<{ address: string; valueWei: string; gasWei: string }>({ name: "policy.walletSpend", text: WALLET_SPEND }, [
      chainId.toString(),
      wallets,
      VALUE_STATUSES,
      UNFINISHED_STATUSES,
    ]);
    const byAddress = new Map(rows.map((r) => [r.address, { address: r.address, valueWei: BigInt(r.valueWei), gasWei: BigInt(r.gasWei) }]));
    return wallets.map((a) => byAddress.get(a) ?? { address: a, valueWei: 0n, gasWei: 0n });
  };

  return {
    /** The wallets' spend now, without locks (what `policies show` and tests read). */
    spendOf: (chainId: bigint, wallets: readonly string[]) => spendOf(pool, chainId, wallets),

    createWithinLimits: (
      input: NewTransaction,
      wallets: readonly string[],
      decide: (spends: WalletSpendRecord[]) => { fromAddress: string } | { refused: string },
    ): Promise<GuardedCreateResult> =>
      inTransaction(pool, async (client) => {
        await client.query({ name: "policy.lockWallets", text: LOCK_WALLETS }, [input.chainId.toString(), wallets]);
        const decision = decide(await spendOf(client, input.chainId, wallets));
        if ("refused" in decision) return decision;
        const [result] = await insertTransactions(client, [{ ...input, request: { ...input.request, fromAddress: decision.fromAddress } }]);
        return { ...result!, fromAddress: decision.fromAddress };
      }),
  };
}

export type SpendGuard = ReturnType<typeof createSpendGuard>;
