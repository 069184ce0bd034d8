import { AppError, type Logger } from "@relay/core";
import { CANCELLED_UNSENT_REASON, type AttemptRecord, type TransactionRecord } from "@relay/db";
import { runAgainIn, type RunAgain } from "@relay/queue";
import type { ChainHandle } from "../chain-directory";
import { broadcast } from "./broadcast";
import { signFirstAttempt, type FirstAttempt } from "./first-attempt";
import { pauseUntilFunded } from "./pause";
import { replaceRefusedAttempt, signReplacement } from "./replace-attempt";
import { noteReasonOnce } from "./note-reason-once";
import { walletCandidates } from "./wallet-choice";
import { expireIfDue } from "./expire";
import { holdForFees } from "./fee-caps";
import type { StepContext, StepDeps } from "./deps";

/**
 * PENDING → SUBMITTED (or INVALID, PAUSED, FAILED): the first attempt signed and stored
 * (first-attempt.ts), then broadcast. Every part is safe to run again after a crash: the nonce
 * binding and the stored attempt are reused, never replaced.
 */
export async function submit(deps: StepDeps, tx: TransactionRecord, { logger }: StepContext): Promise<RunAgain | "done"> {
  if (await expireIfDue(deps, tx, "PENDING")) return "done";
  const handle = await deps.chains.get(tx.chainId);
  const wallets = await deps.wallets.listByProject(tx.projectId);
  const candidates = walletCandidates(wallets, tx);
  if (candidates.length === 0) {
    if (tx.nonce === null && wallets.length > 0) return waitForActiveWallet(deps, tx);
    throw new AppError("INTERNAL", `wallet ${tx.fromAddress} of transaction ${tx.id} no longer exists`);
  }

  const attempts = await deps.transactions.attempts(tx.projectId, tx.id);
  let attempt = attempts[attempts.length - 1];
  if (tx.cancelRequestedAt !== null) {
    const cancel = await cancelBeforeSent(deps, handle, tx, attempt, logger);
    if (cancel.kind === "decided") return cancel.result;
    attempt = cancel.attempt;
  }
  if (!attempt) {
    const held = await holdForFees(deps, handle, tx);
    if (held) return held;
    const first = await signFirstAttempt(deps, handle, tx, candidates, logger);
    if (first.kind === "decided") return first.result;
    attempt = first.attempt;
  }
  return sendAttempt(deps, handle, tx, attempt, logger);
}

/**
 * A cancel asked for before the transaction left PENDING (docs/transactions.md, "Cancelling and
 * speeding up"). With nothing signed: CANCELLED (the gateway does this itself unless it crashed in
 * between; a nonce bound already is filled like an abandoned one). With an attempt of the call
 * signed, which may have reached a node before a crash: a cancel at its nonce takes its place, and
 * is sent as the first attempt would have been. A cancel signed already is sent again.
 */
async function cancelBeforeSent(
  deps: StepDeps,
  handle: ChainHandle,
  tx: TransactionRecord,
  latest: AttemptRecord | undefined,
  logger: Logger,
): Promise<FirstAttempt> {
  if (!latest) {
    await deps.transactions.move(tx.projectId, tx.id, { from: "PENDING", to: "CANCELLED", reason: CANCELLED_UNSENT_REASON });
    return { kind: "decided", result: "done" };
  }
  if (latest.cancel) return { kind: "signed", attempt: latest };
  const cancel = await signReplacement(deps, handle, tx, latest, { status: "PENDING", why: "cancel requested" }, logger, true);
  if (!cancel) return { kind: "decided", result: runAgainIn(handle.record.stuckAfterSeconds * 1000) };
  logger.info({ replaced: latest.hash, cancel: cancel.hash }, "cancel requested before the transaction was sent: a self-transfer at its nonce signed");
  return { kind: "signed", attempt: cancel };
}

const NO_ACTIVE_WALLET = "no active wallet";

/**
 * Every wallet of the project is inactive or retired (deactivated after this transaction was
 * taken), or a top-up's funding wallet is: it stays PENDING, without a nonce, and is sent once a wallet is activated again. The
 * wait is written into its history once, so the project sees why.
 */
async function waitForActiveWallet(deps: StepDeps, tx: TransactionRecord): Promise<RunAgain> {
  const why =
    tx.kind === "FUNDING"
      ? `waiting: funding wallet ${tx.fromAddress} is not active; the top-up is sent once it is activated again`
      : tx.request.fromAddress
        ? `waiting: wallet ${tx.request.fromAddress}, named in fromAddress, is not active (${NO_ACTIVE_WALLET} to send from); it is sent once that wallet is activated again`
        : `waiting: the project has ${NO_ACTIVE_WALLET}; it is sent once one is activated (POST /wallet/toggleIsActive)`;
  await noteReasonOnce(deps, tx, "PENDING", NO_ACTIVE_WALLET, why);
  return runAgainIn(WAIT_FOR_WALLET_MS);
}

/** How often a transaction waiting for an active wallet looks again (the worker's wallet list is 5 s old at most). */
const WAIT_FOR_WALLET_MS = 5_000;

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
  // Its chain's block follower, asleep with nothing in flight, follows it from the next block.
  await deps.blockFollower?.ensure(tx.chainId);
  return runAgainIn(chain.blockTimeMs);
}
