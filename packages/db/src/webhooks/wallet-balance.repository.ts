import type { Sql } from "../client";
import { RECORD_BALANCE } from "./wallet-balance-event";

/**
 * Wallet balances as the low-balance check sees them (docs/webhooks.md, "WalletBalanceLow"):
 * WalletBalanceLow fires once per crossing below the chain's threshold and again only after the
 * balance has been seen at or above it.
 */
export function createWalletBalanceRepository(sql: Sql) {
  return {
    /**
     * Records a balance check of `address` (checksummed, as wallet.address stores it) on a chain.
     * `crossedBelow` is true only when the wallet's state went from not low (or unknown) to low;
     * the WalletBalanceLow event of each project owning the wallet is then written in the same
     * statement. Low means `balanceWei < thresholdWei`.
     */
    recordBalance: async (
      chainId: bigint,
      address: string,
      observed: { balanceWei: bigint; blockNumber: number },
      thresholdWei: bigint,
    ): Promise<{ crossedBelow: boolean }> => {
      const result = await sql.query<{ crossedBelow: boolean }>({ name: "walletBalance.record", text: RECORD_BALANCE }, [
        chainId.toString(),
        address,
        observed.balanceWei.toString(),
        thresholdWei.toString(),
        observed.blockNumber,
      ]);
      return { crossedBelow: result.rows[0]?.crossedBelow === true };
    },
    /**
     * Records the wallet's nonce on the chain beside its balance (the wallets page compares it with
     * the relay's next nonce): `latest` counts its mined transactions, `pending` adds those the
     * node holds; the time it was read is the database's now. Applied to the state row the
     * balance check just wrote (none: nothing to apply to, the next check records it). It is shown,
     * never acted on, so a concurrent older read landing last only shows an older figure a minute.
     */
    recordChainNonce: async (chainId: bigint, address: string, nonce: { latest: number; pending: number }): Promise<void> => {
      await sql.query(
        {
          name: "walletBalance.recordChainNonce",
          text: `UPDATE wallet_balance_state
                    SET chain_nonce_latest = $3::bigint, chain_nonce_pending = $4::bigint, chain_nonce_at = now()
                  WHERE chain_id = $1::bigint AND address = $2`,
        },
        [chainId.toString(), address, nonce.latest, nonce.pending],
      );
    },
  };
}

export type WalletBalanceRepository = ReturnType<typeof createWalletBalanceRepository>;
