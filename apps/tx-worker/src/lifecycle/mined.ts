import type { ChainView, MinedReceipt } from "@relay/chain";
import type { Logger } from "@relay/core";
import { receiptOf, type AttemptRecord } from "@relay/db";
import { runAgainIn, type RunAgain } from "@relay/queue";
import type { ChainHandle } from "../chain-directory";
import { checkBalance } from "./check-balance";
import type { BoundTransaction, StepDeps } from "./deps";
import { whyReverted } from "./why-reverted";

export interface Mined {
  attempt: AttemptRecord;
  receipt: MinedReceipt;
}

async function minedAttempt(view: ChainView, attempts: AttemptRecord[]): Promise<Mined | null> {
  // Any attempt may be the one mined (a replacement can lose to the original); newest first.
  for (const attempt of [...attempts].reverse()) {
    const receipt = await view.receiptOf(attempt.hash, attempt.broadcastAt ?? attempt.createdAt);
    if (receipt) return { attempt, receipt };
  }
  return null;
}

/**
 * As minedAttempt, but as the node has it now. The receipt index keeps what it read from blocks
 * when they were new: a reorganisation after that can move an attempt to another block, drop it,
 * or put it in a block whose number the index has already passed.
 */
export async function freshlyMinedAttempt(view: ChainView, attempts: AttemptRecord[], likeliest?: AttemptRecord): Promise<Mined | null> {
  const newestFirst = [...attempts].reverse();
  for (const attempt of likeliest ? [likeliest, ...newestFirst.filter((a) => a !== likeliest)] : newestFirst) {
    const receipt = await view.freshReceiptOf(attempt.hash);
    if (receipt) return { attempt, receipt };
  }
  return null;
}

/**
 * When the job looks again at a mined attempt whose block has `confirmations` of the chain's: a
 * block later, or, where the block follower looks at it once its block has them, two blocks after
 * that (a fallback for a follower that missed it).
 */
function lookWhenConfirmed(deps: StepDeps, chain: ChainHandle["record"], confirmations: number): RunAgain {
  if (!deps.blockFollower) return runAgainIn(chain.blockTimeMs);
  return runAgainIn((chain.confirmations - confirmations + 2) * chain.blockTimeMs);
}

/**
 * SUBMITTED → CONFIRMED, or REVERTED when the mined attempt failed, once its block has the chain's
 * confirmations (until then, another look a block later), with that attempt's receipt;
 * CANCELLED when the mined attempt is a cancel (the call never ran). When a cancel was asked for
 * and the call won the race, the history says so. The wallet's balance is checked then.
 */
export async function settleMined(deps: StepDeps, handle: ChainHandle, tx: BoundTransaction, mined: Mined, logger: Logger): Promise<RunAgain | "done"> {
  const { record: chain, view } = handle;
  const confirmations = (await view.head()) - mined.receipt.blockNumber + 1;
  if (confirmations < chain.confirmations) return lookWhenConfirmed(deps, chain, confirmations);
  const block = mined.receipt.blockNumber;
  const succeeded = mined.receipt.status === 1;
  const reverted = succeeded || mined.attempt.cancel ? null : await whyReverted(view, tx, mined, logger);
  const lost = tx.cancelRequestedAt !== null ? `; a cancel was asked for, but the transaction was mined first (block ${block})` : "";
  await deps.transactions.move(tx.projectId, tx.id, {
    from: "SUBMITTED",
    ...(mined.attempt.cancel
      ? { to: "CANCELLED" as const, reason: `cancelled: the zero-value self-transfer at nonce ${tx.nonce} was mined in block ${block}; the call never ran` }
      : succeeded
        ? { to: "CONFIRMED" as const, reason: lost ? lost.slice(2) : null }
        : { to: "REVERTED" as const, reason: `${reverted?.reason ?? `reverted on chain in block ${block}`}${lost}` }),
    // The receipt the look above already read (no further call to the node), for the read's `receipt`.
    set: {
      hash: mined.attempt.hash,
      blockNumber: BigInt(block),
      receipt: receiptOf(mined.receipt),
      ...(reverted?.revertData ? { revertData: reverted.revertData } : {}),
    },
  });
  if (mined.attempt.cancel || lost) logger.info({ hash: mined.attempt.hash, block, cancelled: mined.attempt.cancel }, mined.attempt.cancel ? "cancel mined: CANCELLED" : "cancel lost: the transaction was mined first");
  await checkBalance(deps, handle, tx.fromAddress, logger, mined.receipt.blockNumber);
  return "done";
}

/**
 * What an attempt of the transaction that is mined decides (settleMined, or another look while
 * its confirmations are counted); null when none is mined, as the receipts have it.
 */
export async function settleIfMined(
  deps: StepDeps,
  handle: ChainHandle,
  tx: BoundTransaction,
  attempts: AttemptRecord[],
  logger: Logger,
): Promise<RunAgain | "done" | null> {
  const { record: chain, view } = handle;
  const seen = await minedAttempt(view, attempts);
  if (!seen) {
    await noteMined(deps, tx, null);
    return null;
  }
  // One confirmation: mined is enough (undoing a block is what more confirmations guard against).
  if (chain.confirmations === 1) return settleMined(deps, handle, tx, seen, logger);
  const confirmations = (await view.head()) - seen.receipt.blockNumber + 1;
  if (confirmations < chain.confirmations) {
    await noteMined(deps, tx, seen);
    return lookWhenConfirmed(deps, chain, confirmations);
  }
  // Enough confirmations counted on a receipt read when its block was new: before calling it
  // final, ask the node where (and whether) our attempts are mined now. Moved: count from the
  // new block. Dropped: not mined (a replacement after the stuck time).
  const now = await freshlyMinedAttempt(view, attempts, seen.attempt);
  if (now) return settleMined(deps, handle, tx, now, logger);
  await noteMined(deps, tx, null);
  return null;
}

/**
 * Records which attempt is in which block while its confirmations are counted (null: none is),
 * when that differs from what the record says: Syndicate's reads answer PROCESSED from it.
 */
async function noteMined(deps: StepDeps, tx: BoundTransaction, seen: Mined | null): Promise<void> {
  const hash = seen?.attempt.hash ?? null;
  const block = seen ? BigInt(seen.receipt.blockNumber) : null;
  if (tx.minedHash === hash && tx.minedBlockNumber === block) return;
  await deps.transactions.noteMined(tx.projectId, tx.id, seen && { hash: seen.attempt.hash, blockNumber: BigInt(seen.receipt.blockNumber) });
  tx.minedHash = hash;
  tx.minedBlockNumber = block;
}
