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
  };
}

export type WalletBalanceRepository = ReturnType<typeof createWalletBalanceRepository>;
