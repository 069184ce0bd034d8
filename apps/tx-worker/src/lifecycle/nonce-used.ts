import { isMissingPastState } from "@relay/chain";
import { toError, type Logger } from "@relay/core";
import type { AttemptRecord } from "@relay/db";
import { runAgainIn, type RunAgain } from "@relay/queue";
import type { ChainHandle } from "../chain-directory";
import type { BoundTransaction, StepDeps } from "./deps";
import { freshlyMinedAttempt, settleMined } from "./mined";

/** Blocks a nonce must have been used for, at least, before a transaction is FAILED for it. */
const SETTLE_BLOCKS = 2;

/**
 * The wallet's count on chain (`chainNonce`) is past the transaction's nonce: the nonce is used.
 * By one of its own attempts, it is settled as mined; by a transaction that is not ours, FAILED,
 * once that is certain.
 */
export async function settleUsedNonce(
  deps: StepDeps,
  handle: ChainHandle,
  tx: BoundTransaction,
  attempts: AttemptRecord[],
  chainNonce: bigint,
  logger: Logger,
): Promise<RunAgain | "done"> {
  const { record: chain, provider, view } = handle;
  // By one of our attempts after all? It may have been mined since its receipt was looked up, or
  // in a block the receipt index never read (a reorganisation that shortened the chain).
  const ours = await freshlyMinedAttempt(view, attempts);
  if (ours) return settleMined(deps, handle, tx, ours, logger);
  // No verdict until the nonce is used in a block with the chain's confirmations (and at least
  // one more block after it). FAILED is final and the client may send the call again: behind a
  // load-balanced RPC, the node that counted the nonce can be a block or two ahead of the one
  // that answered the receipt look-ups, and a reorganisation can still take the other
  // transaction out. Once that block is settled, the receipts are asked for once more.
  const settled = (await view.head()) - Math.max(chain.confirmations, SETTLE_BLOCKS) + 1;
  if (settled < 0) return runAgainIn(chain.blockTimeMs);
  const countThen = await provider.getTransactionCount(tx.fromAddress, settled).then(BigInt, (e: unknown) => {
    // An endpoint that keeps only the latest state cannot say: the latest count and the receipts
    // decide alone, rather than leave the transaction SUBMITTED for good. Any other failure is retried.
    if (!isMissingPastState(e)) throw e;
    logger.warn({ err: toError(e), block: settled }, "the RPC cannot count the wallet's nonce at a past block; deciding on the latest count");
    return chainNonce;
  });
  if (countThen <= tx.nonce) return runAgainIn(chain.blockTimeMs);
  const oursAfterAll = await freshlyMinedAttempt(view, attempts);
  if (oursAfterAll) return settleMined(deps, handle, tx, oursAfterAll, logger);
  await deps.transactions.move(tx.projectId, tx.id, {
    from: "SUBMITTED",
    to: "FAILED",
    reason: `nonce ${tx.nonce} of ${tx.fromAddress} was used by another transaction`,
  });
  return "done";
}
