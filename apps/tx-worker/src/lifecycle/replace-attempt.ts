import { bumpFees, describeCeiling } from "@relay/chain";
import { AppError, type Logger } from "@relay/core";
import type { AttemptRecord, TransactionRecord } from "@relay/db";
import { runAgainIn, type RunAgain } from "@relay/queue";
import type { ChainHandle } from "../chain-directory";
import { broadcast, type BroadcastOutcome } from "./broadcast";
import type { StepDeps } from "./deps";
import { noteReasonOnce } from "./note-reason-once";
import { feesFor, transactionCaps } from "./fee-caps";
import { selfTransferGas } from "./fill-gap";
import { feesOf, signAttempt } from "./sign-attempt";

/** Why no new attempt is signed, in the history and the log, whichever step wanted one. */
const CAPPED = "the fee cap leaves no room for a new attempt 12.5 % higher";

/**
 * A new attempt at the nonce of `previous`, priced for now and at least 12.5 % above it (both fee
 * fields, what a node asks of a replacement), within the chain's caps: signed and stored, not yet
 * broadcast. Null when the caps leave no room: the history says so, `why` first (what the new
 * attempt was for), once per such wait, and the caller waits. A replacement of a cancel is a
 * cancel; with `cancel`, so is the replacement of the call (a zero-value self-transfer, with the
 * gas such a transfer needs on this chain).
 */
export async function signReplacement(
  deps: StepDeps,
  handle: ChainHandle,
  tx: TransactionRecord,
  previous: AttemptRecord,
  note: { status: "PENDING" | "SUBMITTED"; why: string },
  logger: Logger,
  cancel = previous.cancel,
): Promise<AttemptRecord | null> {
  const { record: chain, view } = handle;
  // Within the transaction's own maxFeePerGas too, where it gave one.
  const caps = transactionCaps(chain, tx);
  const market = await feesFor(view, tx);
  const fees = bumpFees(feesOf(previous), market, caps);
  if (!fees) {
    logger.warn({ hash: previous.hash, why: note.why }, CAPPED);
    await noteReasonOnce(deps, tx, note.status, CAPPED, `${note.why}; ${CAPPED} (${describeCeiling(market, caps)}): waiting`);
    return null;
  }
  const wallet = await deps.wallets.findByAddress(previous.fromAddress);
  if (!wallet) throw new AppError("INTERNAL", `wallet ${previous.fromAddress} no longer exists`);
  const gasLimit = cancel && !previous.cancel ? await selfTransferGas(handle.provider, previous.fromAddress) : previous.gasLimit;
  return signAttempt(deps, { ...tx, fromAddress: previous.fromAddress, nonce: previous.nonce }, wallet.id, gasLimit, fees, cancel);
}

/**
 * The node refused the stored attempt on its fees: priced before the base fee rose (signed, then
 * paused until the wallet was funded), or under what the node's pool takes. Sending the same bytes
 * again never helps, so a new attempt takes its place; the next run broadcasts it. With no room
 * under the caps, the transaction stays PENDING and looks again after a stuck period.
 */
export async function replaceRefusedAttempt(
  deps: StepDeps,
  handle: ChainHandle,
  tx: TransactionRecord,
  refused: AttemptRecord,
  message: string,
  logger: Logger,
): Promise<RunAgain> {
  const next = await signReplacement(deps, handle, tx, refused, { status: "PENDING", why: `the node refused the signed transaction (${message})` }, logger);
  if (!next) return runAgainIn(handle.record.stuckAfterSeconds * 1000);
  logger.info({ refused: refused.hash, replacement: next.hash, reason: message }, "signed transaction refused on its fees; signed again with higher fees");
  return runAgainIn(0);
}

/** What the history says of a replacement the node was given (one whose nonce was used is not noted). */
function replacementNote(outcome: Exclude<BroadcastOutcome, { kind: "nonce-used" }>, cancel: boolean): string {
  const what = cancel ? CANCEL_WHAT : "a replacement with higher fees";
  switch (outcome.kind) {
    case "sent":
      return cancel ? `replaced with ${CANCEL_WHAT}` : "replaced with higher fees";
    case "insufficient-funds":
      return `${what} is signed, but the wallet cannot pay for it yet`;
    case "underpriced":
      return `the node refused ${what} as still too low (${outcome.message}); the next one is priced higher`;
    case "rejected":
      return `the node refused ${what} (${outcome.message}); the earlier attempt stays out there`;
  }
}

/** Why a replacement is signed now rather than after the chain's stuck time. */
export type ReplaceNow = "cancel" | "speed-up";

const CANCEL_WHAT = "a cancel: a zero-value transfer of the wallet to itself at the same nonce, with higher fees";

/**
 * SUBMITTED → SUBMITTED: `latest` has waited `ageMs`, past the chain's stuck time, at the nonce the
 * chain waits for. A new attempt takes its place and is broadcast at once. With no room under the
 * caps, `latest` is sent again as it is and the transaction waits another stuck period.
 */
export async function replaceStuckAttempt(
  deps: StepDeps,
  handle: ChainHandle,
  tx: TransactionRecord,
  latest: AttemptRecord,
  ageMs: number,
  logger: Logger,
): Promise<RunAgain> {
  return replaceAttempt(deps, handle, tx, latest, `not mined after ${Math.round(ageMs / 1000)} s`, logger);
}

/**
 * SUBMITTED → SUBMITTED at once, as asked (docs/transactions.md, "Cancelling and speeding up"): a
 * cancel (a zero-value self-transfer at the nonce) or a speed-up (the call again, with fees
 * raised now), as replaceStuckAttempt signs and sends it, the history naming the request.
 */
export async function replaceOnRequest(deps: StepDeps, handle: ChainHandle, tx: TransactionRecord, latest: AttemptRecord, request: ReplaceNow, logger: Logger): Promise<RunAgain> {
  const why = request === "cancel" ? "cancel requested" : "speed-up requested";
  // Capped, the request stays unmet until an operator raises the cap: looked at again every block
  // (the attempt out there may be mined meanwhile, and is settled at the top of the next look),
  // not after the chain's stuck time, which may be long.
  return replaceAttempt(deps, handle, tx, latest, why, logger, request === "cancel", handle.record.blockTimeMs);
}

async function replaceAttempt(
  deps: StepDeps,
  handle: ChainHandle,
  tx: TransactionRecord,
  latest: AttemptRecord,
  stuckFor: string,
  logger: Logger,
  cancel = latest.cancel,
  /** When to look again if the caps leave no room: the chain's stuck time unless given. */
  cappedLookAgainMs = handle.record.stuckAfterSeconds * 1000,
): Promise<RunAgain> {
  const { provider } = handle;
  const replacement = await signReplacement(deps, handle, tx, latest, { status: "SUBMITTED", why: stuckFor }, logger, cancel);
  if (!replacement) {
    await broadcast(provider, latest);
    return runAgainIn(cappedLookAgainMs);
  }
  // A broadcast that throws (transient) leaves the attempt unsent; the next run sends it. One the
  // node refuses is not sent either: the earlier attempts stay out there, and the next stuck
  // period prices a new one from this one.
  const outcome = await broadcast(provider, replacement);
  if (outcome.kind === "nonce-used") {
    // Used since it was looked at, most likely by the attempt this one was to replace: the next
    // run finds which transaction used it. The replacement never entered a pool, so the history
    // does not say "replaced" and its hash is not the transaction's.
    logger.info({ previous: latest.hash, replacement: replacement.hash }, "nonce used while a replacement was signed; not sent");
    return runAgainIn(0);
  }
  const sent = outcome.kind === "sent";
  if (sent) await deps.transactions.markAttemptBroadcast(replacement.hash);
  await deps.transactions.move(tx.projectId, tx.id, {
    from: "SUBMITTED",
    to: "SUBMITTED",
    reason: `${stuckFor}; ${replacementNote(outcome, cancel)}`,
    set: { hash: sent ? replacement.hash : latest.hash },
  });
  logger.info({ previous: latest.hash, replacement: replacement.hash }, "stuck transaction replaced");
  return runAgainIn(handle.record.blockTimeMs);
}
