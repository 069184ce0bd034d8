import { randomUUID } from "node:crypto";
import type { TransactionRepository } from "@relay/db";

/**
 * A transaction that took the wallet's next nonce and then failed before sending anything: the
 * gap a filler closes. Written through the repository, as the worker would leave it. Returns the
 * nonce it abandoned.
 */
export async function abandonNextNonce(
  transactions: TransactionRepository,
  at: { projectId: string; chainId: number; contractAddress: string; address: string },
): Promise<bigint> {
  const id = randomUUID();
  await transactions.create({
    projectId: at.projectId,
    id,
    chainId: BigInt(at.chainId),
    contractAddress: at.contractAddress,
    functionSignature: "function spend(uint256 n)",
    args: ["1"],
    calldata: new Uint8Array([1, 2, 3, 4]),
  });
  const binding = await transactions.allocateNonce({ projectId: at.projectId, transactionId: id, address: at.address, chainPendingNonce: 0n });
  if (!binding) throw new Error(`no nonce bound to ${id}`);
  await transactions.move(at.projectId, id, { from: "PENDING", to: "FAILED", reason: "test: failed after taking a nonce" });
  return binding.nonce;
}
