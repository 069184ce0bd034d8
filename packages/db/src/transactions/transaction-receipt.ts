/**
 * The receipt of the attempt a transaction ended with, as the tx-worker records it when the
 * transaction becomes CONFIRMED or REVERTED (the block number and the attempt's hash are the
 * transaction's own `blockNumber` and `hash`). Only the reads select it: the worker's statements
 * never need it.
 */
export interface TransactionReceipt {
  blockHash: string;
  gasUsed: bigint;
  /** Null when the node's receipt had none (a chain before EIP-1559). */
  effectiveGasPriceWei: bigint | null;
  /** The L1 data fee, where the chain's receipt reports one (OP Stack); null elsewhere. */
  l1FeeWei: bigint | null;
  /** gasUsed × effectiveGasPriceWei, plus l1FeeWei when there is one; null without a price. */
  feeWei: bigint | null;
  logCount: number;
}

/** What a receipt is recorded from: the node's fields (MinedReceipt in @relay/chain has them). */
export interface ReceiptSource {
  blockHash: string;
  gasUsed: bigint;
  effectiveGasPrice: bigint | null;
  l1Fee: bigint | null;
  logCount: number;
}

/** The fee paid, as the receipt says: gas used at its effective price, plus any L1 fee. */
export function receiptOf(source: ReceiptSource): TransactionReceipt {
  const { blockHash, gasUsed, effectiveGasPrice, l1Fee, logCount } = source;
  return {
    blockHash,
    gasUsed,
    effectiveGasPriceWei: effectiveGasPrice,
    l1FeeWei: l1Fee,
    feeWei: effectiveGasPrice === null ? null : gasUsed * effectiveGasPrice + (l1Fee ?? 0n),
    logCount,
  };
}

/** The receipt as one JSON object (null before the transaction is final), for table alias `t`. */
export const RECEIPT_JSON = `
  CASE WHEN t.receipt_block_hash IS NULL THEN NULL ELSE json_build_object(
    'blockHash', t.receipt_block_hash, 'gasUsed', t.receipt_gas_used::text,
    'effectiveGasPriceWei', t.receipt_effective_gas_price_wei::text, 'l1FeeWei', t.receipt_l1_fee_wei::text,
    'feeWei', t.receipt_fee_wei::text, 'logCount', t.receipt_log_count) END`;

export type ReceiptJson = { [K in keyof TransactionReceipt]: TransactionReceipt[K] extends number ? number : string | null } & { blockHash: string; gasUsed: string };

const bigintOrNull = (text: string | null): bigint | null => (text === null ? null : BigInt(text));

export const toReceipt = (json: ReceiptJson | null): TransactionReceipt | null =>
  json && {
    blockHash: json.blockHash,
    gasUsed: BigInt(json.gasUsed),
    effectiveGasPriceWei: bigintOrNull(json.effectiveGasPriceWei),
    l1FeeWei: bigintOrNull(json.l1FeeWei),
    feeWei: bigintOrNull(json.feeWei),
    logCount: json.logCount,
  };
