import { keccak256 } from "ethers";
import type { Fees } from "@relay/chain";
import type { AttemptRecord } from "@relay/db";
import type { BoundTransaction, StepDeps } from "./deps";

/**
 * Signs the transaction at its bound nonce with these fees and stores the signed bytes and hash
 * before anything is broadcast, so a crash after the broadcast cannot lose track of what was sent.
 * With `cancel`, what is signed is not the call but a zero-value transfer of the wallet to itself
 * with empty data (docs/transactions.md, "Cancelling and speeding up").
 */
export async function signAttempt(
  deps: StepDeps,
  tx: BoundTransaction,
  walletId: string,
  gasLimit: bigint,
  fees: Fees,
  cancel = false,
): Promise<AttemptRecord> {
  const raw = await deps.signer.signTransaction(walletId, {
    chainId: tx.chainId,
    nonce: Number(tx.nonce),
    ...(cancel
      ? { to: tx.fromAddress, data: "0x", value: 0n }
      : { to: tx.contractAddress, data: `0x${Buffer.from(tx.calldata).toString("hex")}`, value: tx.valueWei }),
    gasLimit,
    ...(fees.type === 2
      ? { type: 2, maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas }
      : { type: 0, gasPrice: fees.gasPrice }),
  });
  return deps.transactions.recordAttempt({
    projectId: tx.projectId,
    transactionId: tx.id,
    chainId: tx.chainId,
    fromAddress: tx.fromAddress,
    nonce: tx.nonce,
    hash: keccak256(raw),
    rawTransaction: Buffer.from(raw.slice(2), "hex"),
    type: fees.type,
    gasLimit,
    maxFeePerGasWei: fees.type === 2 ? fees.maxFeePerGas : null,
    maxPriorityFeePerGasWei: fees.type === 2 ? fees.maxPriorityFeePerGas : null,
    gasPriceWei: fees.type === 0 ? fees.gasPrice : null,
    cancel,
  });
}

export { feesOfAttempt as feesOf } from "@relay/chain";
