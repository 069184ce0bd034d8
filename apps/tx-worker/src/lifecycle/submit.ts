import { maxGasCost } from "@relay/chain";
import { AppError } from "@relay/core";
import type { MoveFields, TransactionRecord } from "@relay/db";
import { runAgainIn, type RunAgain } from "@relay/queue";
import { broadcast } from "./broadcast";
import { chooseSender } from "./choose-sender";
import { signAttempt } from "./sign-attempt";
import { walletOrder } from "./wallet-choice";
import type { StepContext, StepDeps } from "./deps";

/**
 * PENDING → SUBMITTED (or INVALID, PAUSED, FAILED). In order: a wallet that can pay, simulated
 * from (no nonce is taken for a call that reverts), nonce from Postgres, fees, signature, stored
 * attempt, broadcast. Every part is safe to run again after a crash: the nonce binding and the
 * stored attempt are reused, never replaced.
 */
export async function submit(deps: StepDeps, tx: TransactionRecord, { logger }: StepContext): Promise<RunAgain | "done"> {
  const { record: chain, provider, view } = await deps.chains.get(tx.chainId);
  const wallets = await deps.wallets.listByProject(tx.projectId);
  // A transaction that holds a nonce keeps its wallet; one that does not may use any of the project's.
  const candidates = tx.nonce !== null && tx.fromAddress ? wallets.filter((w) => w.address === tx.fromAddress) : walletOrder(wallets, tx.id);
  if (candidates.length === 0) throw new AppError("INTERNAL", `wallet ${tx.fromAddress} of transaction ${tx.id} no longer exists`);
  const pause = (reason: string, set: MoveFields) => deps.transactions.move(tx.projectId, tx.id, { from: "PENDING", to: "PAUSED", reason, set });

  let attempts = await deps.transactions.attempts(tx.projectId, tx.id);
  if (attempts.length === 0) {
    const choice = await chooseSender(view, provider, tx, candidates);
    if (choice.kind === "reverted") {
      await deps.transactions.move(tx.projectId, tx.id, { from: "PENDING", to: "INVALID", reason: choice.reason });
      return "done";
    }
    if (choice.kind === "unfunded") {
      await pause(choice.reason, { fromAddress: choice.wallet.address, ...(choice.gasLimit === null ? {} : { gasLimit: choice.gasLimit }) });
      return runAgainIn(chain.blockTimeMs);
    }
    const { wallet, gasLimit, fees } = choice;

    const binding = await deps.transactions.allocateNonce({
      projectId: tx.projectId,
      transactionId: tx.id,
      address: wallet.address,
      // The chain's count is a floor (the key used outside the relay); a block old is enough.
      chainPendingNonce: await view.pendingNonce(wallet.address),
    });
    if (!binding) return "done"; // moved on by another worker meanwhile
    const bound = { ...tx, fromAddress: binding.fromAddress, nonce: binding.nonce };

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
  // "nonce too low" after our own broadcast: following receipts decides whether it was ours.
  await deps.transactions.move(tx.projectId, tx.id, {
    from: "PENDING",
    to: "SUBMITTED",
    set: { fromAddress: attempt.fromAddress, nonce: attempt.nonce, gasLimit: attempt.gasLimit, hash: attempt.hash },
    markBroadcast: attempt.hash,
  });
  return runAgainIn(chain.blockTimeMs);
}
