import { bumpFees, describeCeiling, maxGasCost, type BlockTag, type ChainView } from "@relay/chain";
import { AppError, type Logger } from "@relay/core";
import type { AttemptRecord, MoveFields, TransactionRecord } from "@relay/db";
import { runAgainIn, type RunAgain } from "@relay/queue";
import { broadcast } from "./broadcast";
import { checkBalance } from "./check-balance";
import { chooseSender } from "./choose-sender";
import { noteReasonOnce } from "./note-reason-once";
import { feesOf, signAttempt } from "./sign-attempt";
import { sizeGasInOrder } from "./size-gas-in-order";
import { walletCandidates } from "./wallet-choice";
import type { StepContext, StepDeps } from "./deps";

/**
 * PENDING → SUBMITTED (or INVALID, PAUSED, FAILED). In order: a wallet that can pay, simulated
 * from (no nonce is taken for a call that reverts), nonce from Postgres, fees, signature, stored
 * attempt, broadcast. Every part is safe to run again after a crash: the nonce binding and the
 * stored attempt are reused, never replaced.
 */
export async function submit(deps: StepDeps, tx: TransactionRecord, { logger }: StepContext): Promise<RunAgain | "done"> {
  const handle = await deps.chains.get(tx.chainId);
  const { record: chain, provider, view } = handle;
  const candidates = walletCandidates(await deps.wallets.listByProject(tx.projectId), tx);
  if (candidates.length === 0) throw new AppError("INTERNAL", `wallet ${tx.fromAddress} of transaction ${tx.id} no longer exists`);
  // A wallet that cannot pay is the low balance a WalletBalanceLow event is for: checked now, not
  // at the next scheduled check up to a minute later. Read at the head through the chain view, so
  // the transactions that pause on one wallet in one block share one balance read.
  const pause = async (reason: string, set: MoveFields & { fromAddress: string }) => {
    await deps.transactions.move(tx.projectId, tx.id, { from: "PENDING", to: "PAUSED", reason, set });
    await checkBalance(deps, handle, set.fromAddress, logger, await view.head());
  };

  let attempts = await deps.transactions.attempts(tx.projectId, tx.id);
  if (attempts.length === 0) {
    const choice = await chooseSender(view, deps.transactions, tx, candidates);
    if (choice.kind !== "chosen" && (await deps.transactions.attempts(tx.projectId, tx.id)).length > 0) {
      // Another run of this job (one handed back at shutdown, or taken over after a stall, while
      // the first still runs) signed and sent the transaction while this one simulated. A revert or
      // an empty wallet seen now may be that very transaction's doing, mined meanwhile (a one-shot
      // call, the funds it spent): it is not INVALID, and its attempt is followed on the next run.
      // Its attempt was stored before it was broadcast, so a simulation that saw it mined finds it.
      return runAgainIn(0);
    }
    if (choice.kind === "reverted") {
      await deps.transactions.move(tx.projectId, tx.id, { from: "PENDING", to: "INVALID", reason: choice.reason });
      return "done";
    }
    if (choice.kind === "unfunded") {
      await pause(choice.reason, { fromAddress: choice.wallet.address, ...(choice.gasLimit === null ? {} : { gasLimit: choice.gasLimit }) });
      return runAgainIn(chain.blockTimeMs);
    }
    const { wallet, fees } = choice;

    const binding = await deps.transactions.allocateNonce({
      projectId: tx.projectId,
      transactionId: tx.id,
      address: wallet.address,
      // The chain's count is a floor (the key used outside the relay); a block old is enough.
      chainPendingNonce: await view.pendingNonce(wallet.address),
    });
    if (!binding) return "done"; // moved on by another worker meanwhile
    const bound = { ...tx, fromAddress: binding.fromAddress, nonce: binding.nonce };
    const gasLimit = await gasLimitInOrder(deps, view, bound, choice, logger);
    if (gasLimit === null) return "done";

    if (binding.fromAddress !== wallet.address) {
      // Bound by an earlier run to another wallet: that one must pay.
      const balance = await view.balance(binding.fromAddress);
      const needed = maxGasCost(fees, gasLimit) + tx.valueWei;
      if (balance < needed) {
        await pause(`wallet ${binding.fromAddress} holds ${balance} wei, needs up to ${needed} wei`, { fromAddress: binding.fromAddress, nonce: binding.nonce, gasLimit });
        return runAgainIn(chain.blockTimeMs);
      }
    }
    const walletId = binding.fromAddress === wallet.address ? wallet.id : (await deps.wallets.findByAddress(binding.fromAddress))?.id;
    if (!walletId) throw new AppError("INTERNAL", `wallet ${binding.fromAddress} no longer exists`);
    attempts = [await signAttempt(deps, bound, walletId, gasLimit, fees)];
    logger.info({ nonce: binding.nonce.toString(), from: binding.fromAddress, hash: attempts[0]!.hash }, "transaction signed");
  }

  const attempt = attempts[attempts.length - 1]!;
  const outcome = await broadcast(provider, attempt);
  if (outcome.kind === "insufficient-funds") {
    await pause(`wallet ${attempt.fromAddress} cannot pay: ${outcome.message}`, { fromAddress: attempt.fromAddress, nonce: attempt.nonce, gasLimit: attempt.gasLimit });
    return runAgainIn(chain.blockTimeMs);
  }
  if (outcome.kind === "underpriced") return reprice(deps, tx, attempt, outcome.message, { logger });
  if (outcome.kind === "rejected") {
    // Unless the nonce is used already (by these bytes after all, from another node), nothing
    // will ever send this transaction: FAILED, and its nonce is the gap filler's.
    if (BigInt(await provider.getTransactionCount(attempt.fromAddress, "latest")) <= attempt.nonce) {
      await deps.transactions.move(tx.projectId, tx.id, { from: "PENDING", to: "FAILED", reason: `the node refused the signed transaction: ${outcome.message}` });
      logger.warn({ hash: attempt.hash, nonce: attempt.nonce.toString() }, "signed transaction refused for good; FAILED");
      return "done";
    }
  }
  // "nonce too low" after our own broadcast: following receipts decides whether it was ours.
  await deps.transactions.move(tx.projectId, tx.id, {
    from: "PENDING",
    to: "SUBMITTED",
    set: { fromAddress: attempt.fromAddress, nonce: attempt.nonce, gasLimit: attempt.gasLimit, hash: attempt.hash },
    markBroadcast: attempt.hash,
  });
  return runAgainIn(chain.blockTimeMs);
}

/**
 * The gas limit of a bound transaction after the wallet's earlier ones (size-gas-in-order.ts), or
 * null when it reverts after them: INVALID, and its nonce is filled by a self-transfer.
 */
async function gasLimitInOrder(
  deps: StepDeps,
  view: ChainView,
  tx: TransactionRecord & { fromAddress: string; nonce: bigint },
  { gasLimit: estimated, at }: { gasLimit: bigint; at: BlockTag },
  logger: Logger,
): Promise<bigint | null> {
  const call = { from: tx.fromAddress, to: tx.contractAddress, data: `0x${Buffer.from(tx.calldata).toString("hex")}`, value: tx.valueWei };
  const inOrder = await sizeGasInOrder(deps.transactions, view, call, tx, tx.nonce, estimated, at);
  if (inOrder === null) return estimated;
  const context = { nonce: tx.nonce.toString(), from: tx.fromAddress, ahead: inOrder.ahead, estimated: estimated.toString() };
  if (inOrder.kind === "too-many") {
    logger.warn(context, "too many of the wallet's transactions in flight to size the gas limit after them: the estimate stands");
    return estimated;
  }
  if (inOrder.kind === "reverted") {
    const reason = `simulation reverted after the wallet's ${inOrder.ahead} earlier transaction(s) still in flight: ${inOrder.reason}`;
    await deps.transactions.move(tx.projectId, tx.id, { from: "PENDING", to: "INVALID", reason });
    logger.info(context, "the call reverts after the wallet's earlier transactions; INVALID, its nonce to be filled");
    return null;
  }
  if (inOrder.gasLimit !== estimated) logger.info({ ...context, gasLimit: inOrder.gasLimit.toString() }, "gas limit raised for the state the wallet's earlier transactions leave");
  return inOrder.gasLimit;
}

const CAPPED = "the fee cap leaves no room for fees the node takes";

/**
 * The node refused the stored attempt on its fees: priced before the base fee rose (signed, then
 * paused until the wallet was funded), or under what the node's pool takes. Sending the same bytes
 * again never helps, so a new attempt at the same nonce is signed, priced for now and at least
 * 12.5 % above the refused one, within the chain's caps, and stored; the next run broadcasts it.
 * With no room under the caps, the history says so (once) and the transaction waits a stuck period.
 */
async function reprice(deps: StepDeps, tx: TransactionRecord, refused: AttemptRecord, message: string, { logger }: StepContext): Promise<RunAgain> {
  const { record: chain, view } = await deps.chains.get(tx.chainId);
  const market = await view.fees();
  const fees = bumpFees(feesOf(refused), market, chain);
  if (!fees) {
    logger.warn({ hash: refused.hash }, "signed transaction refused on its fees, and the fee cap leaves no room for more");
    await noteReasonOnce(deps, tx, "PENDING", CAPPED, `the node refused the signed transaction (${message}); ${CAPPED} (${describeCeiling(market, chain)}): waiting`);
    return runAgainIn(chain.stuckAfterSeconds * 1000);
  }
  const wallet = await deps.wallets.findByAddress(refused.fromAddress);
  if (!wallet) throw new AppError("INTERNAL", `wallet ${refused.fromAddress} no longer exists`);
  const next = await signAttempt(deps, { ...tx, fromAddress: refused.fromAddress, nonce: refused.nonce }, wallet.id, refused.gasLimit, fees);
  logger.info({ refused: refused.hash, replacement: next.hash, reason: message }, "signed transaction refused on its fees; signed again with higher fees");
  return runAgainIn(0);
}
