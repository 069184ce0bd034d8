import { bumpFees, describeCeiling, isMissingPastState, type ChainView, type MinedReceipt } from "@relay/chain";
import { AppError, toError } from "@relay/core";
import type { AttemptRecord, TransactionRecord } from "@relay/db";
import { runAgainIn, type RunAgain } from "@relay/queue";
import { broadcast, type BroadcastOutcome } from "./broadcast";
import { feesOf, signAttempt } from "./sign-attempt";
import { fillGapIfAbandoned } from "./fill-gap";
import { checkBalance } from "./check-balance";
import { noteReasonOnce } from "./note-reason-once";
import type { StepContext, StepDeps } from "./deps";

const CAPPED = "the fee cap leaves no room for a replacement 12.5 % higher";

type Mined = { attempt: AttemptRecord; receipt: MinedReceipt };

/** Blocks a nonce must have been used for, at least, before a transaction is FAILED for it. */
const SETTLE_BLOCKS = 2;

/** What the history says of a replacement the node was given (one whose nonce was used is not noted). */
function replacementNote(outcome: Exclude<BroadcastOutcome, { kind: "nonce-used" }>): string {
  switch (outcome.kind) {
    case "sent":
      return "replaced with higher fees";
    case "insufficient-funds":
      return "a replacement with higher fees is signed, but the wallet cannot pay for it yet";
    case "underpriced":
      return `the node refused a replacement with higher fees as still too low (${outcome.message}); the next one is priced higher`;
    case "rejected":
      return `the node refused a replacement with higher fees (${outcome.message}); the earlier attempt stays out there`;
  }
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
async function freshlyMinedAttempt(view: ChainView, attempts: AttemptRecord[], likeliest?: AttemptRecord): Promise<Mined | null> {
  const newestFirst = [...attempts].reverse();
  for (const attempt of likeliest ? [likeliest, ...newestFirst.filter((a) => a !== likeliest)] : newestFirst) {
    const receipt = await view.freshReceiptOf(attempt.hash);
    if (receipt) return { attempt, receipt };
  }
  return null;
}

/**
 * SUBMITTED → CONFIRMED | REVERTED once an attempt is mined with the chain's confirmations; a new
 * attempt at the same nonce with fees raised by ≥ 12.5 % when none is mined after the chain's
 * stuck time; FAILED when the nonce was used by a transaction that is not ours.
 */
export async function follow(deps: StepDeps, tx: TransactionRecord, { logger }: StepContext): Promise<RunAgain | "done"> {
  const handle = await deps.chains.get(tx.chainId);
  const { record: chain, provider, view } = handle;
  const attempts = await deps.transactions.attempts(tx.projectId, tx.id);
  if (attempts.length === 0 || tx.nonce === null || tx.fromAddress === null) {
    throw new AppError("INTERNAL", `SUBMITTED transaction ${tx.id} has no attempt`);
  }

  const fromAddress = tx.fromAddress;
  const confirmed = async (mined: Mined): Promise<RunAgain | "done"> => {
    const confirmations = (await view.head()) - mined.receipt.blockNumber + 1;
    if (confirmations < chain.confirmations) return runAgainIn(chain.blockTimeMs);
    const succeeded = mined.receipt.status === 1;
    await deps.transactions.move(tx.projectId, tx.id, {
      from: "SUBMITTED",
      to: succeeded ? "CONFIRMED" : "REVERTED",
      reason: succeeded ? null : `reverted on chain in block ${mined.receipt.blockNumber}`,
      set: { hash: mined.attempt.hash, blockNumber: BigInt(mined.receipt.blockNumber) },
    });
    await checkBalance(deps, handle, fromAddress, logger, mined.receipt.blockNumber);
    return "done";
  };

  const seen = await minedAttempt(view, attempts);
  if (seen) {
    // One confirmation: mined is enough (undoing a block is what more confirmations guard against).
    if (chain.confirmations === 1) return confirmed(seen);
    if ((await view.head()) - seen.receipt.blockNumber + 1 < chain.confirmations) return runAgainIn(chain.blockTimeMs);
    // Enough confirmations counted on a receipt read when its block was new: before calling it
    // final, ask the node where (and whether) our attempts are mined now. Moved: count from the
    // new block. Dropped: not mined, as below (a replacement after the stuck time).
    const now = await freshlyMinedAttempt(view, attempts, seen.attempt);
    if (now) return confirmed(now);
  }

  const latest = attempts[attempts.length - 1]!;
  // The newest attempt, if the node has not taken it yet (a replacement the wallet could not pay
  // for, or one refused): sent again as it is.
  // The stuck time counts from when the node took it.
  let unsent: BroadcastOutcome | null = null;
  let sentAt = (latest.broadcastAt ?? latest.createdAt).getTime();
  if (!latest.broadcastAt) {
    const outcome = await broadcast(provider, latest);
    if (outcome.kind === "sent") {
      await deps.transactions.markAttemptBroadcast(latest.hash);
      sentAt = deps.now();
    } else if (outcome.kind === "nonce-used") {
      // Used by another transaction (an earlier attempt of ours, most likely) before the node took
      // this one: it was never sent, and is not marked so; the checks below find who used it.
      unsent = outcome;
    } else {
      unsent = outcome;
      // Until it can be sent, the newest attempt the node did take stands for the transaction: sent
      // again too, so a node that dropped it (a restart, its pool full) does not leave the nonce
      // unused, and the wallet's later transactions waiting behind it for ever.
      const standing = attempts.findLast((a) => a.broadcastAt !== null);
      if (standing) await broadcast(provider, standing);
    }
  }
  const age = deps.now() - sentAt;
  if (age < chain.stuckAfterSeconds * 1000) return runAgainIn(chain.blockTimeMs);

  const chainNonce = BigInt(await provider.getTransactionCount(tx.fromAddress, "latest"));
  if (chainNonce < tx.nonce) {
    // An earlier nonce of this wallet is not mined yet: this one is waiting in line, not
    // underpriced, so raising its fees would only cost money. If nothing unfinished holds that
    // earlier nonce, nothing ever will use it: fill it.
    await fillGapIfAbandoned(deps, handle, tx.fromAddress, chainNonce, logger);
    return runAgainIn(chain.blockTimeMs);
  }
  if (chainNonce > tx.nonce) {
    // The nonce is used. By one of our attempts after all? It may have been mined since its
    // receipt was looked up above, or in a block the receipt index never read (a reorganisation
    // that shortened the chain).
    const ours = await freshlyMinedAttempt(view, attempts);
    if (ours) return confirmed(ours);
    // No verdict until the nonce is used in a block with the chain's confirmations (and at least
    // one more block after it). FAILED is final and the client may send the call again: behind a
    // load-balanced RPC, the node that counted the nonce can be a block or two ahead of the one
    // that answered the receipt look-ups, and a reorganisation can still take the other
    // transaction out. Once that block is settled, the receipts are asked for once more.
    const settled = (await view.head()) - Math.max(chain.confirmations, SETTLE_BLOCKS) + 1;
    if (settled < 0) return runAgainIn(chain.blockTimeMs);
    const countThen = await provider.getTransactionCount(tx.fromAddress, settled).then(BigInt, (e: unknown) => {
      // An endpoint that keeps only the latest state cannot say: decided on the latest count and
      // the receipts, as before this check existed. Any other failure is retried.
      if (!isMissingPastState(e)) throw e;
      logger.warn({ err: toError(e), block: settled }, "the RPC cannot count the wallet's nonce at a past block; deciding on the latest count");
      return chainNonce;
    });
    if (countThen <= tx.nonce) return runAgainIn(chain.blockTimeMs);
    const oursAfterAll = await freshlyMinedAttempt(view, attempts);
    if (oursAfterAll) return confirmed(oursAfterAll);
    await deps.transactions.move(tx.projectId, tx.id, {
      from: "SUBMITTED",
      to: "FAILED",
      reason: `nonce ${tx.nonce} of ${tx.fromAddress} was used by another transaction`,
    });
    return "done";
  }

  // A replacement the node has not taken for want of funds (or for good) is not priced over again:
  // another 12.5 % each stuck period would only raise what the wallet must hold before any is sent.
  // Refused as too cheap, it is: that is what the node asks for.
  if (unsent !== null && unsent.kind !== "underpriced") return runAgainIn(chain.blockTimeMs);
  const market = await view.fees();
  const fees = bumpFees(feesOf(latest), market, chain);
  if (!fees) {
    logger.warn({ hash: latest.hash }, "stuck, and the fee cap leaves no room for a replacement");
    await noteReasonOnce(
      deps,
      tx,
      "SUBMITTED",
      CAPPED,
      `not mined after ${Math.round(age / 1000)} s; ${CAPPED} (${describeCeiling(market, chain)}): waiting`,
    );
    await broadcast(provider, latest);
    return runAgainIn(chain.stuckAfterSeconds * 1000);
  }
  const wallet = await deps.wallets.findByAddress(tx.fromAddress);
  if (!wallet) throw new AppError("INTERNAL", `wallet ${tx.fromAddress} no longer exists`);
  const replacement = await signAttempt(deps, { ...tx, fromAddress: tx.fromAddress, nonce: tx.nonce }, wallet.id, latest.gasLimit, fees);
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
    reason: `not mined after ${Math.round(age / 1000)} s; ${replacementNote(outcome)}`,
    set: { hash: sent ? replacement.hash : latest.hash },
  });
  logger.info({ previous: latest.hash, replacement: replacement.hash }, "stuck transaction replaced");
  return runAgainIn(chain.blockTimeMs);
}
