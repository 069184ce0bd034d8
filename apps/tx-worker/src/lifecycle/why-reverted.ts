import { classifyRpcError, type ChainView } from "@relay/chain";
import type { Logger } from "@relay/core";
import { toQuantity } from "ethers";
import type { BoundTransaction } from "./deps";
import type { Mined } from "./mined";
import { revertReason } from "./revert-reason";

export interface RevertedOnChain {
  reason: string;
  /** 0x-hex; null when the re-run gave none. */
  revertData: string | null;
}

/**
 * Why a mined attempt reverted: its call run again (eth_call, with the attempt's gas limit) on the
 * state its block left, which holds whatever earlier in that block made it revert (a receipt has
 * no revert data, and debug_traceTransaction is missing on most hosted nodes). Only for an attempt
 * that reverted: one call per failed transaction, none on the success path. A re-run that
 * succeeds, or that the node cannot answer, leaves the plain "reverted on chain"; the outcome
 * never waits on it.
 */
export async function whyReverted(view: ChainView, tx: BoundTransaction, mined: Mined, logger: Logger): Promise<RevertedOnChain> {
  const plain = `reverted on chain in block ${mined.receipt.blockNumber}`;
  const call = {
    from: tx.fromAddress,
    to: tx.contractAddress,
    data: `0x${Buffer.from(tx.calldata).toString("hex")}`,
    value: toQuantity(tx.valueWei),
    gas: toQuantity(mined.attempt.gasLimit),
  };
  try {
    await view.provider.send("eth_call", [call, toQuantity(mined.receipt.blockNumber)]);
    return { reason: `${plain} (the call succeeds when run again on that block's state: it may have run out of gas, or depended on the order within the block)`, revertData: null };
  } catch (e) {
    const refusal = classifyRpcError(e);
    if (refusal.kind === "reverted") return { reason: `${plain}: ${revertReason(tx, refusal.data, refusal.reason)}`, revertData: refusal.data };
    logger.warn({ err: e, hash: mined.attempt.hash }, "could not run a reverted call again for its reason");
    return { reason: plain, revertData: null };
  }
}
