import type { Sql } from "../client";
import type { CustodyBackendName } from "@relay/core";
import type { WalletType } from "./wallet.repository";

/**
 * One wallet on one configured chain, as Syndicate lists wallets (a Syndicate wallet row has a
 * chain; a relay wallet signs on every chain the relay is configured for, so it is one row per
 * chain). docs/syndicate.md, "Wallets".
 */
export interface WalletChainRow {
  walletId: string;
  projectId: string;
  address: string;
  chainId: bigint;
  /** The next nonce the relay hands out for the wallet on the chain; 0 before its first send there. */
  nonce: bigint;
  isActive: boolean;
  retiredAt: Date | null;
  walletType: WalletType;
  /** Where the wallet's key is kept. */
  backend: CustodyBackendName;
  createdAt: Date;
  updatedAt: Date;
  /** The balance the relay last recorded (wei), null when it has not read it yet. Only `withData`. */
  balanceWei?: bigint | null;
  /** Transactions the wallet sent that are CONFIRMED on the chain. Only `withData`. */
  confirmedCount?: number;
  /** Below the chain's low-balance threshold when last read; null when not read yet. Only `withData`. */
  lowBalance?: boolean | null;
  /**
   * The wallet's nonce on the chain as the scheduled balance check last read it: `latest` its
   * mined transactions, `pending` with the node's pending ones, `readAt` when. Null when not read
   * yet. Only `withData`.
   */
  chainNonce?: { latest: bigint; pending: bigint; readAt: Date } | null;
}

const ROWS = `
  SELECT w.id AS "walletId", w.project_id AS "projectId", w.address, c.chain_id::text AS "chainId",
         COALESCE(n.next, 0)::text AS nonce, w.is_active AS "isActive", w.retired_at AS "retiredAt",
         w.wallet_type::text AS "walletType", w.backend::text AS backend, w.created_at AS "createdAt", w.updated_at AS "updatedAt"
    FROM wallet w
    CROSS JOIN chain c
    LEFT JOIN wallet_nonce n ON n.chain_id = c.chain_id AND n.address = w.address
   WHERE w.project_id = $1
   ORDER BY w.created_at, w.id, c.chain_id`;

// The count is served by the (chain_id, from_address, status) index.
const ROWS_WITH_DATA = `
  SELECT w.id AS "walletId", w.project_id AS "projectId", w.address, c.chain_id::text AS "chainId",
         COALESCE(n.next, 0)::text AS nonce, w.is_active AS "isActive", w.retired_at AS "retiredAt",
         w.wallet_type::text AS "walletType", w.backend::text AS backend, w.created_at AS "createdAt", w.updated_at AS "updatedAt",
         b.balance_wei::text AS "balanceWei", b.low AS "lowBalance",
         b.chain_nonce_latest::text AS "chainNonceLatest", b.chain_nonce_pending::text AS "chainNoncePending", b.chain_nonce_at AS "chainNonceAt",
         (SELECT count(*) FROM transaction t
           WHERE t.chain_id = c.chain_id AND t.from_address = w.address AND t.status = 'CONFIRMED')::int AS "confirmedCount"
    FROM wallet w
    CROSS JOIN chain c
    LEFT JOIN wallet_nonce n ON n.chain_id = c.chain_id AND n.address = w.address
    LEFT JOIN wallet_balance_state b ON b.chain_id = c.chain_id AND b.address = w.address
   WHERE w.project_id = $1
   ORDER BY w.created_at, w.id, c.chain_id`;

interface RawRow {
  walletId: string;
  projectId: string;
  address: string;
  chainId: string;
  nonce: string;
  isActive: boolean;
  retiredAt: Date | null;
  walletType: WalletType;
  backend: CustodyBackendName;
  createdAt: Date;
  updatedAt: Date;
  balanceWei?: string | null;
  confirmedCount?: number;
  lowBalance?: boolean | null;
  chainNonceLatest?: string | null;
  chainNoncePending?: string | null;
  chainNonceAt?: Date | null;
}

const toChainNonce = (latest: string | null | undefined, pending: string | null | undefined, at: Date | null | undefined) =>
  latest == null || pending == null || at == null ? null : { latest: BigInt(latest), pending: BigInt(pending), readAt: at };

/** A project's wallets on each configured chain, for Syndicate's GET /wallet/project/{projectId}/wallets. */
export function createWalletRowsRepository(sql: Sql) {
  return {
    listByProject: async (projectId: string, options: { withData: boolean }): Promise<WalletChainRow[]> => {
      const text = options.withData ? ROWS_WITH_DATA : ROWS;
      const { rows } = await sql.query<RawRow>({ name: options.withData ? "walletRows.withData" : "walletRows.list", text }, [projectId]);
      return rows.map(({ balanceWei, confirmedCount, lowBalance, chainNonceLatest, chainNoncePending, chainNonceAt, ...r }) => ({
        ...r,
        chainId: BigInt(r.chainId),
        nonce: BigInt(r.nonce),
        ...(options.withData
          ? {
              balanceWei: balanceWei == null ? null : BigInt(balanceWei),
              confirmedCount: confirmedCount ?? 0,
              lowBalance: lowBalance ?? null,
              chainNonce: toChainNonce(chainNonceLatest, chainNoncePending, chainNonceAt),
            }
          : {}),
      }));
    },
  };
}

export type WalletRowsRepository = ReturnType<typeof createWalletRowsRepository>;
