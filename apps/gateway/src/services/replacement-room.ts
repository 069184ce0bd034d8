import { capsWith, feesOfAttempt, roomUnderCaps } from "@relay/chain";
import type { AttemptRecord, ChainRepository, TransactionRecord } from "@relay/db";

export interface ReplacementRoomDeps {
  attempts: (projectId: string, transactionId: string) => Promise<AttemptRecord[]>;
  chains: Pick<ChainRepository, "findById">;
}

/** What a speed-up can do under the fee caps, as told from the records alone (no chain read). */
export type ReplacementRoom = { capped: false } | { capped: true; message: string };

/**
 * Whether the fee caps (the chain's, and the transaction's own maxFeePerGas) leave room for a
 * replacement of the transaction's newest attempt: the smallest one a node takes raises every fee
 * field by 12.5 %. No room is certain from the records; room is then bounded by the market too,
 * which the tx-worker reads when it prices the replacement (its history says if that caps it).
 */
export function createReplacementRoom(deps: ReplacementRoomDeps) {
  return async (tx: TransactionRecord): Promise<ReplacementRoom> => {
    const latest = (await deps.attempts(tx.projectId, tx.id)).at(-1);
    const chain = await deps.chains.findById(tx.chainId);
    if (!latest || !chain) return { capped: false };
    const caps = capsWith(chain, tx.request.maxFeePerGasWei);
    if (roomUnderCaps(feesOfAttempt(latest), caps)) return { capped: false };
    const own = tx.request.maxFeePerGasWei !== null && tx.request.maxFeePerGasWei === caps.maxFeePerGasCapWei ? "the transaction's maxFeePerGas" : "the chain's fee cap";
    return {
      capped: true,
      message:
        `the attempt out there (nonce ${latest.nonce}) already pays within 12.5 % of ${own} ` +
        `(max fee per gas at most ${caps.maxFeePerGasCapWei ?? "unlimited"} wei, priority fee at most ${caps.maxPriorityFeePerGasCapWei ?? "unlimited"} wei): ` +
        "no replacement can outbid it, so it stays as it is; an operator can raise the chain's cap (`npm run relay -- chains add` with the chain's id updates it)",
    };
  };
}
