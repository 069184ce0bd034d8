import type { AttemptView, StatusChangeRecord, TransactionReceipt, TransactionRecord } from "@relay/db";

const text = (value: bigint | null) => (value === null ? null : value.toString());

/** The final attempt's receipt as the reads show it; null before the transaction is final. */
export const toReceiptResponse = (receipt: TransactionReceipt | null, blockNumber: bigint | null) =>
  receipt && {
    blockNumber: text(blockNumber),
    blockHash: receipt.blockHash,
    gasUsed: receipt.gasUsed.toString(),
    effectiveGasPrice: text(receipt.effectiveGasPriceWei),
    l1Fee: text(receipt.l1FeeWei),
    fee: text(receipt.feeWei),
    logCount: receipt.logCount,
  };

/** A transaction as the list shows it: the read's fields without its history and attempts. */
export function toTransactionSummary(tx: TransactionRecord, receipt: TransactionReceipt | null) {
  return {
    transactionId: tx.id,
    projectId: tx.projectId,
    chainId: Number(tx.chainId),
    contractAddress: tx.contractAddress,
    functionSignature: tx.functionSignature,
    args: tx.args,
    calldata: `0x${Buffer.from(tx.calldata).toString("hex")}`,
    status: tx.status,
    from: tx.fromAddress,
    nonce: text(tx.nonce),
    hash: tx.hash,
    blockNumber: text(tx.blockNumber),
    error: tx.error,
    revertData: tx.revertData,
    createdAt: tx.createdAt.toISOString(),
    updatedAt: tx.updatedAt.toISOString(),
    receipt: toReceiptResponse(receipt, tx.blockNumber),
  };
}

/** The read endpoint's view of a transaction: integers as decimal strings, bytes as 0x hex. */
export function toTransactionResponse(tx: TransactionRecord, history: StatusChangeRecord[], attempts: AttemptView[], receipt: TransactionReceipt | null) {
  return {
    ...toTransactionSummary(tx, receipt),
    history: history.map((h) => ({ status: h.status, previousStatus: h.previousStatus, reason: h.reason, at: h.createdAt.toISOString() })),
    attempts: attempts.map((a) => ({
      hash: a.hash,
      nonce: a.nonce.toString(),
      type: a.type,
      gasLimit: a.gasLimit.toString(),
      maxFeePerGas: text(a.maxFeePerGasWei),
      maxPriorityFeePerGas: text(a.maxPriorityFeePerGasWei),
      gasPrice: text(a.gasPriceWei),
      createdAt: a.createdAt.toISOString(),
      broadcastAt: a.broadcastAt?.toISOString() ?? null,
      cancel: a.cancel,
    })),
  };
}
