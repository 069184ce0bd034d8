/** Gas limit headroom over the estimate: other senders can change the state between simulation and inclusion. */
const GAS_HEADROOM_PERCENT = 120n;
/** The most gas one transaction may carry on chains with EIP-7825 (Osaka): 2^24. */
const TX_GAS_CAP = 1n << 24n;
/** Gas a call with value passes on beyond what it is charged (the EVM's call stipend). */
const CALL_STIPEND = 2_300n;

/**
 * The most gas a transaction may carry here: the block's gas limit, and 2^24 (EIP-7825) where that
 * is below it, unless `estimate` is above 2^24 already, which says the chain has no such cap (a
 * node that enforces it estimates no more), as on L2s that count their L1 data in gas.
 */
export function gasCeiling(blockGasLimit: bigint, estimate = 0n): bigint {
  return blockGasLimit < TX_GAS_CAP || estimate > TX_GAS_CAP ? blockGasLimit : TX_GAS_CAP;
}

/**
 * The estimate with its headroom, as far as it fits: a limit above the ceiling is refused by the
 * node for good, so a call that fits but whose 20 % headroom does not would end FAILED. Never
 * below the estimate itself: a call that needs more than a block is the node's to refuse.
 */
export function withHeadroom(estimate: bigint, blockGasLimit: bigint): bigint {
  const padded = (estimate * GAS_HEADROOM_PERCENT) / 100n;
  const ceiling = gasCeiling(blockGasLimit, estimate);
  if (padded <= ceiling) return padded;
  return estimate > ceiling ? estimate : ceiling;
}

/**
 * The gas limit a call that held at most `peakGas` at once is likely to need: what geth's own
 * estimate tries first, the peak plus the call stipend, times 64/63 for the share of gas the EVM
 * keeps back from each inner call (EIP-150). Checked by simulation before it is used.
 */
export const limitForPeak = (peakGas: bigint): bigint => ((peakGas + CALL_STIPEND) * 64n + 62n) / 63n;
