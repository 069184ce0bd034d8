import { createBatcher, type BatcherOptions } from "@relay/core";
import { UNFINISHED_STATUSES } from "@relay/lifecycle";
import type { SqlPool } from "../client";
import { inTransaction } from "../in-transaction";
import { oneByOneOnDataError } from "../one-by-one-on-data-error";
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
 * Takes the spend locks of wallets $2 on chains $1 (pairwise), in (chain, address) order, so two
 * sends locking the same wallets cannot deadlock, until the end of the database transaction.
 */
const LOCK_WALLETS = `
  SELECT count(pg_advisory_xact_lock(hashtextextended('wallet-spend:' || s.chain_id || ':' || lower(s.address), 0)))
    FROM (SELECT c AS chain_id, a AS address FROM unnest($1::text[], $2::text[]) AS p(c, a) ORDER BY c, lower(a)) s`;

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

/** One send a spend limit guards: the transaction, the wallets it may go from, and the policy's choice among them. */
export interface GuardedSend {
  input: NewTransaction;
  wallets: readonly string[];
  /** Sees the candidate wallets' spend and picks the one the transaction goes from, or refuses. */
  decide: (spends: WalletSpendRecord[]) => { fromAddress: string } | { refused: string };
}

export interface SpendGuardOptions {
  /** Concurrent guarded sends share one database transaction (locks, sums, INSERT), as unguarded sends share their INSERT. */
  coalesce?: BatcherOptions;
}

const spendKey = (chainId: bigint, address: string) => `${chainId}:${address.toLowerCase()}`;

/**
 * Sends that a project's daily spend limits guard (docs/policies.md): the check and the INSERT in
 * one database transaction, under a lock per wallet, so concurrent sends cannot overspend a
 * wallet together. A refusal writes nothing. The INSERT is the same statement as every other
 * send's (insertTransactions), with the chosen wallet as the transaction's requested one.
 *
 * With `coalesce`, the sends that arrive while a batch runs go together: one transaction locks
 * every wallet of the batch, sums their last 24 hours once, decides the sends in their order
 * (each seeing what the ones before it in the batch took) and inserts the accepted ones in one
 * statement. A send accepted in the batch whose requestId turns out to exist already is counted
 * for the sends after it in that batch: the error is on the side of refusing, never of
 * overspending.
 */
export function createSpendGuard(pool: SqlPool, options: SpendGuardOptions = {}) {
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

  const createMany = (sends: readonly GuardedSend[]): Promise<GuardedCreateResult[]> =>
    inTransaction(pool, async (client) => {
      const walletsByChain = new Map<bigint, Set<string>>();
      for (const { input, wallets } of sends) {
        const set = walletsByChain.get(input.chainId) ?? new Set<string>();
        for (const address of wallets) set.add(address);
        walletsByChain.set(input.chainId, set);
      }
      const pairs = [...walletsByChain].flatMap(([chainId, set]) => [...set].map((address) => [chainId.toString(), address] as const));
      await client.query({ name: "policy.lockWallets", text: LOCK_WALLETS }, [pairs.map((p) => p[0]), pairs.map((p) => p[1])]);
      const spent = new Map<string, WalletSpendRecord>();
      for (const [chainId, set] of walletsByChain) {
        for (const spend of await spendOf(client, chainId, [...set])) spent.set(spendKey(chainId, spend.address), spend);
      }

      const decisions = sends.map(({ input, wallets, decide }): { refused: string } | { input: NewTransaction; fromAddress: string } => {
        const decision = decide(wallets.map((address) => spent.get(spendKey(input.chainId, address))!));
        if ("refused" in decision) return decision;
        const chosen = spent.get(spendKey(input.chainId, decision.fromAddress))!;
        spent.set(spendKey(input.chainId, decision.fromAddress), {
          address: chosen.address,
          valueWei: chosen.valueWei + (input.valueWei ?? 0n),
          gasWei: chosen.gasWei + (input.gasReservedWei ?? 0n),
        });
        return { input: { ...input, request: { ...input.request, fromAddress: decision.fromAddress } }, fromAddress: decision.fromAddress };
      });
      const accepted = decisions.filter((d): d is { input: NewTransaction; fromAddress: string } => !("refused" in d));
      const inserted = accepted.length === 0 ? [] : await insertTransactions(client, accepted.map((d) => d.input));
      const results = new Map(accepted.map((d, i) => [d, { ...inserted[i]!, fromAddress: d.fromAddress }]));
      return decisions.map((d) => ("refused" in d ? d : results.get(d)!));
    });

  const createAlone = async (send: GuardedSend): Promise<GuardedCreateResult> => (await createMany([send]))[0]!;
  const createOne = options.coalesce ? createBatcher(oneByOneOnDataError(createMany), options.coalesce) : createAlone;

  return {
    /** The wallets' spend now, without locks (what `policies show` and tests read). */
    spendOf: (chainId: bigint, wallets: readonly string[]) => spendOf(pool, chainId, wallets),

    createWithinLimits: (input: NewTransaction, wallets: readonly string[], decide: GuardedSend["decide"]): Promise<GuardedCreateResult> =>
      createOne({ input, wallets, decide }),
  };
}

export type SpendGuard = ReturnType<typeof createSpendGuard>;
