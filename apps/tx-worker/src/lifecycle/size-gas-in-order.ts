import { classifyRpcError, isMissingPastState, MAX_SIMULATED_BLOCKS, type BlockTag, type ChainView } from "@relay/chain";
import { AppError, toError } from "@relay/core";
import type { TransactionRepository } from "@relay/db";
import { toQuantity } from "ethers";
import { gasCeiling, limitForPeak, withHeadroom } from "./gas-limit";

export interface WalletCall {
  from: string;
  to: string;
  /** Calldata, 0x-hex. */
  data: string;
  value: bigint;
}

/** `ahead`: how many of the wallet's calls it was run after. */
export type InOrderGas =
  | { kind: "sized"; gasLimit: bigint; ahead: number }
  /** `data`: the revert data, 0x-hex; null when the node gave none. */
  | { kind: "reverted"; reason: string; data: string | null; ahead: number }
  /** More of the wallet's calls in flight than one simulation holds. */
  | { kind: "too-many"; ahead: number };

/**
 * The gas limit of a call the wallet sends at `nonce`, checked against the state its earlier
 * transactions leave, for a wallet's transactions are mined in nonce order. An estimate against the
 * latest block meets none of those still in flight: a call whose cost depends on what they change
 * (a storage slot one of them empties costs 20,000 gas more to set again) ran out of gas, for good
 * and paid for, whenever they were mined before it in one block.
 *
 * `gasLimit` was estimated against `block`. Null with nothing of the wallet in flight before it
 * there (no further request to the node), or when the node cannot simulate in order: the caller
 * keeps what it has. Otherwise the calls at the nonces from that block's count up to `nonce` run
 * in order on top of it (eth_simulateV1), each with the limit it was signed with, this one last
 * with `gasLimit`. The limit is then at least what the call needs after them with the usual
 * headroom over that need (not over the estimate); one that fails there is raised so and checked
 * again. A call that fails after them even with all the gas a transaction may carry
 * would fail in the order it was sent: `reverted`.
 *
 * `nonce` null: the call holds no nonce yet and would run after every one bound (asked for a call
 * that reverts against the latest block, which one of them may be what makes it succeed).
 * `gasLimit` null: there is no estimate to check yet.
 *
 * A node without eth_simulateV1: the estimate against its pending state, when larger. Nodes that
 * build that state from their pool (anvil; geth, rebuilt at most every 2 s) then count the
 * wallet's transactions they have taken; others answer for the latest block.
 */
export async function sizeGasInOrder(
  transactions: Pick<TransactionRepository, "callsAhead">,
  view: ChainView,
  call: WalletCall,
  transaction: { projectId: string; id: string },
  nonce: bigint | null,
  gasLimit: bigint | null,
  at: BlockTag,
): Promise<InOrderGas | null> {
  let block = at;
  const mined = await view.nonceAt(call.from, block).catch((e: unknown) => {
    if (!isMissingPastState(e)) throw new AppError("UNAVAILABLE", `nonce count failed: ${toError(e).message}`, { retryable: true, cause: e });
    block = "latest";
    return view.nonceAt(call.from, block);
  });
  if (nonce !== null && nonce <= mined) return null;
  // Not the transaction itself: another run of its job may have bound it meanwhile.
  const earlier = await transactions.callsAhead({ chainId: view.chain.chainId, address: call.from, fromNonce: mined, beforeNonce: nonce, except: transaction });
  if (earlier.length === 0) return null;
  const ahead = earlier.length;
  // Each call takes at most one simulated block, and this one the last.
  if (ahead >= MAX_SIMULATED_BLOCKS) return { kind: "too-many", ahead };

  const prefix = earlier.map((e) => ({ from: call.from, to: e.to, data: `0x${e.calldata.toString("hex")}`, value: e.valueWei, gas: e.gasLimit ?? undefined }));
  const lastOf = async (gas: bigint) => {
    const outcome = await view.simulateInOrder([...prefix, { ...call, gas }], block);
    return outcome ? outcome[outcome.length - 1]! : null;
  };
  const blockGasLimit = await view.blockGasLimit();

  if (gasLimit !== null) {
    const asEstimated = await lastOf(gasLimit);
    if (asEstimated === null) return estimateAtPending(view, call, gasLimit, blockGasLimit, ahead);
    if (asEstimated.ok) {
      // Enough after them, but the headroom must be over what it needs after them: an estimate
      // made before a slot was set again can pass with a few hundred gas to spare, and another
      // sender's transaction between them (the chain orders senders as it likes) then tips it over.
      const needed = withHeadroom(limitForPeak(asEstimated.peakGas), blockGasLimit);
      return { kind: "sized", gasLimit: needed > gasLimit ? needed : gasLimit, ahead };
    }
  }
  const ceiling = gasCeiling(blockGasLimit, gasLimit ?? 0n);
  const withAll = await lastOf(ceiling);
  if (withAll === null) return gasLimit === null ? null : estimateAtPending(view, call, gasLimit, blockGasLimit, ahead);
  if (!withAll.ok) return { kind: "reverted", reason: withAll.reason, data: withAll.data, ahead };
  const needed = withHeadroom(limitForPeak(withAll.peakGas), blockGasLimit);
  const raised = gasLimit !== null && gasLimit > needed ? gasLimit : needed;
  // The peak bounds what the call needs but for deeply nested calls; the ceiling is certain.
  return { kind: "sized", gasLimit: (await lastOf(raised))?.ok ? raised : ceiling, ahead };
}

async function estimateAtPending(view: ChainView, call: WalletCall, gasLimit: bigint, blockGasLimit: bigint, ahead: number): Promise<InOrderGas | null> {
  let estimate: bigint;
  try {
    estimate = BigInt((await view.provider.send("eth_estimateGas", [{ from: call.from, to: call.to, data: call.data, value: toQuantity(call.value) }, "pending"])) as string);
  } catch (e) {
    const refusal = classifyRpcError(e);
    // The pending state is the node's guess at the next block, not the wallet's order: a revert
    // there leaves the call to the estimate that succeeded.
    if (refusal.kind === "reverted" || refusal.kind === "insufficient-funds") return null;
    throw new AppError("UNAVAILABLE", `estimate against the pending state failed: ${refusal.kind === "transient" ? refusal.message : refusal.kind}`, { retryable: true, cause: e });
  }
  const atPending = withHeadroom(estimate, blockGasLimit);
  return atPending > gasLimit ? { kind: "sized", gasLimit: atPending, ahead } : null;
}
