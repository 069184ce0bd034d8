import { AppError, type Logger } from "@relay/core";
import type { AttemptRecord, TransactionRecord } from "@relay/db";
import { runAgainIn, type RunAgain } from "@relay/queue";
import type { ChainHandle } from "../chain-directory";
import { broadcast } from "./broadcast";
import { signFirstAttempt } from "./first-attempt";
import { pauseUntilFunded } from "./pause";
import { replaceRefusedAttempt } from "./replace-attempt";
import { walletCandidates } from "./wallet-choice";
import type { StepContext, StepDeps } from "./deps";

/**
 * PENDING → SUBMITTED (or INVALID, PAUSED, FAILED): the first attempt signed and stored
 * (first-attempt.ts), then broadcast. Every part is safe to run again after a crash: the nonce
 * binding and the stored attempt are reused, never replaced.
 */
export async function submit(deps: StepDeps, tx: TransactionRecord, { logger }: StepContext): Promise<RunAgain | "done"> {
  const handle = await deps.chains.get(tx.chainId);
  const candidates = walletCandidates(await deps.wallets.listByProject(tx.projectId), tx);
  if (candidates.length === 0) throw new AppError("INTERNAL", `wallet ${tx.fromAddress} of transaction ${tx.id} no longer exists`);

  const attempts = await deps.transactions.attempts(tx.projectId, tx.id);
  let attempt = attempts[attempts.length - 1];
  if (!attempt) {
    const first = await signFirstAttempt(deps, handle, tx, candidates, logger);
    if (first.kind === "decided") return first.result;
    attempt = first.attempt;
  }
  return sendAttempt(deps, handle, tx, attempt, logger);
}

/** Broadcasts the newest stored attempt, and moves the transaction as the node's answer says. */
async function sendAttempt(deps: StepDeps, handle: ChainHandle, tx: TransactionRecord, attempt: AttemptRecord, logger: Logger): Promise<RunAgain | "done"> {
  const { record: chain, provider } = handle;
  const outcome = await broadcast(provider, attempt);
  if (outcome.kind === "insufficient-funds") {
    const set = { fromAddress: attempt.fromAddress, nonce: attempt.nonce, gasLimit: attempt.gasLimit };
    return pauseUntilFunded(deps, handle, tx, `wallet ${attempt.fromAddress} cannot pay: ${outcome.message}`, set, logger);
  }
  if (outcome.kind === "underpriced") return replaceRefusedAttempt(deps, handle, tx, attempt, outcome.message, logger);
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
