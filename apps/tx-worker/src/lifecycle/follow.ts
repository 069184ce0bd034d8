import { AppError } from "@relay/core";
import type { AttemptRecord, TransactionRecord } from "@relay/db";
import { runAgainIn, type RunAgain } from "@relay/queue";
import type { ChainHandle } from "../chain-directory";
import { broadcast, type BroadcastOutcome } from "./broadcast";
import { fillGapIfAbandoned } from "./fill-gap";
import { settleIfMined } from "./mined";
import { settleUsedNonce } from "./nonce-used";
import { replaceOnRequest, replaceStuckAttempt, type ReplaceNow } from "./replace-attempt";
import type { StepContext, StepDeps } from "./deps";

/**
 * SUBMITTED → CONFIRMED | REVERTED once an attempt is mined with the chain's confirmations
 * (mined.ts); a new attempt at the same nonce with fees raised by ≥ 12.5 % when none is mined after
 * the chain's stuck time (replace-attempt.ts); FAILED when the nonce was used by a transaction that
 * is not ours (nonce-used.ts).
 */
export async function follow(deps: StepDeps, tx: TransactionRecord, { logger }: StepContext): Promise<RunAgain | "done"> {
  const handle = await deps.chains.get(tx.chainId);
  const { record: chain, provider } = handle;
  const attempts = await deps.transactions.attempts(tx.projectId, tx.id);
  if (attempts.length === 0 || tx.nonce === null || tx.fromAddress === null) {
    throw new AppError("INTERNAL", `SUBMITTED transaction ${tx.id} has no attempt`);
  }
  const bound = { ...tx, fromAddress: tx.fromAddress, nonce: tx.nonce };
  await deps.blockFollower?.ensure(tx.chainId);

  const mined = await settleIfMined(deps, handle, bound, attempts, logger);
  if (mined !== null) return mined;

  const latest = attempts[attempts.length - 1]!;
  // Asked for through the API (docs/transactions.md, "Cancelling and speeding up"): a cancel
  // replaces the call at its nonce once, at once; a speed-up replaces the attempt signed before
  // it. Not before the newest attempt is mined or not: one mined is settled above.
  const asked = requestedReplacement(tx, latest);
  if (asked) return replaceOnRequest(deps, handle, bound, latest, asked, logger);
  const { sentAt, unsent } = await sendNewestIfUnsent(deps, provider, attempts);
  const age = deps.now() - sentAt;
  if (age < chain.stuckAfterSeconds * 1000) return runAgainIn(nextOwnLook(deps, chain, chain.stuckAfterSeconds * 1000 - age));

  const chainNonce = BigInt(await provider.getTransactionCount(bound.fromAddress, "latest"));
  if (chainNonce < bound.nonce) {
    // An earlier nonce of this wallet is not mined yet: this one is waiting in line, not
    // underpriced, so raising its fees would only cost money. If nothing unfinished holds that
    // earlier nonce, nothing ever will use it: fill it.
    await fillGapIfAbandoned(deps, handle, bound.fromAddress, chainNonce, logger);
    return runAgainIn(chain.blockTimeMs);
  }
  if (chainNonce > bound.nonce) return settleUsedNonce(deps, handle, bound, attempts, chainNonce, logger);

  // A replacement the node has not taken for want of funds (or for good) is not priced over again:
  // another 12.5 % each stuck period would only raise what the wallet must hold before any is sent.
  // Refused as too cheap, it is: that is what the node asks for.
  if (unsent !== null && unsent.kind !== "underpriced") return runAgainIn(chain.blockTimeMs);
  return replaceStuckAttempt(deps, handle, bound, latest, age, logger);
}

/** Blocks between a transaction's own looks at the chain while the block follower looks every block. */
const OWN_LOOK_EVERY_BLOCKS = 30;

/**
 * When the job looks again at an attempt not mined yet: every block without a block follower;
 * with one (which settles it when mined), at the stuck time, or sooner, a slower look that finds
 * what the follower missed (a block it skipped, the follower down).
 */
function nextOwnLook(deps: StepDeps, chain: ChainHandle["record"], untilStuckMs: number): number {
  if (!deps.blockFollower) return chain.blockTimeMs;
  return Math.max(chain.blockTimeMs, Math.min(untilStuckMs, OWN_LOOK_EVERY_BLOCKS * chain.blockTimeMs));
}

/** A replacement asked for and not made yet: a cancel while the newest attempt is the call, a speed-up asked for since it was signed. */
function requestedReplacement(tx: TransactionRecord, latest: AttemptRecord): ReplaceNow | null {
  if (tx.cancelRequestedAt !== null) return latest.cancel ? null : "cancel";
  if (tx.speedUpRequestedAt !== null && tx.speedUpRequestedAt > latest.createdAt) return "speed-up";
  return null;
}

/**
 * The newest attempt, if the node has not taken it yet (a replacement the wallet could not pay
 * for, or one refused), sent again as it is. `sentAt`: when the node took it, which the stuck time
 * counts from; `unsent`: what the node answered when it still did not.
 */
async function sendNewestIfUnsent(
  deps: StepDeps,
  provider: ChainHandle["provider"],
  attempts: AttemptRecord[],
): Promise<{ sentAt: number; unsent: BroadcastOutcome | null }> {
  const latest = attempts[attempts.length - 1]!;
  if (latest.broadcastAt) return { sentAt: latest.broadcastAt.getTime(), unsent: null };
  const outcome = await broadcast(provider, latest);
  if (outcome.kind === "sent") {
    await deps.transactions.markAttemptBroadcast(latest.hash);
    return { sentAt: deps.now(), unsent: null };
  }
  if (outcome.kind !== "nonce-used") {
    // Until it can be sent, the newest attempt the node did take stands for the transaction: sent
    // again too, so a node that dropped it (a restart, its pool full) does not leave the nonce
    // unused, and the wallet's later transactions waiting behind it for ever.
    const standing = attempts.findLast((a) => a.broadcastAt !== null);
    if (standing) await broadcast(provider, standing);
  }
  // "Nonce too low": used by another transaction (an earlier attempt of ours, most likely) before
  // the node took this one. It was never sent, and is not marked so; the caller finds who used it.
  return { sentAt: latest.createdAt.getTime(), unsent: outcome };
}
