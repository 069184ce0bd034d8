import type { TransactionStatus } from "@relay/lifecycle";
import type { Sql } from "../client";

export interface TransactionCount {
  chainId: string;
  status: TransactionStatus;
  count: number;
}

export interface WalletBalance {
  chainId: string;
  address: string;
  /** Wei as a decimal string (exact); metrics turn it into a float. */
  balanceWei: string;
  low: boolean;
  checkedAt: Date;
}

/**
 * Every configured chain × every status, with its number of transactions (0 included, so a series
 * exists before its first transaction). The count is one pass over the (chain_id, from_address,
 * status) index (an index-only scan): about 0.25 s per million transactions on a small machine,
 * so large deployments scrape it less often (docs/metrics.md).
 */
const TRANSACTION_COUNTS = `
  WITH counts AS (SELECT chain_id, status, count(*) AS n FROM transaction GROUP BY chain_id, status)
  SELECT c.chain_id::text AS "chainId", s.status::text AS status, coalesce(n.n, 0)::text AS count
    FROM chain c
   CROSS JOIN unnest(enum_range(NULL::"TransactionStatus")) AS s(status)
    LEFT JOIN counts n ON n.chain_id = c.chain_id AND n.status = s.status`;

/**
 * The last balance the low-balance check saw per wallet and chain, on chains with a threshold:
 * balances are recorded on every chain (for the wallet list's withData), but the series stay one
 * per wallet and chain the operator gave a threshold (docs/metrics.md, label cardinality).
 */
const WALLET_BALANCES = `
  SELECT s.chain_id::text AS "chainId", s.address, s.balance_wei::text AS "balanceWei", s.low, s.checked_at AS "checkedAt"
    FROM wallet_balance_state s
    JOIN chain c ON c.chain_id = s.chain_id
   WHERE c.low_balance_threshold_wei > 0`;

/** Read-only views of the records for the metrics the gateway serves (collected at scrape time). */
export function createMetricsRepository(sql: Sql) {
  return {
    transactionCounts: async (): Promise<TransactionCount[]> => {
      const { rows } = await sql.query<{ chainId: string; status: TransactionStatus; count: string }>({ name: "metrics.transactionCounts", text: TRANSACTION_COUNTS });
      return rows.map((r) => ({ chainId: r.chainId, status: r.status, count: Number(r.count) }));
    },
    walletBalances: async (): Promise<WalletBalance[]> => {
      const { rows } = await sql.query<WalletBalance>({ name: "metrics.walletBalances", text: WALLET_BALANCES });
      return rows;
    },
  };
}

export type MetricsRepository = ReturnType<typeof createMetricsRepository>;
