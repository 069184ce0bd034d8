import { isAppError } from "@relay/core";
import { runAgainIn, type Processor, type RunAgain } from "@relay/queue";
import type { BlockFollower } from "../lifecycle/block-follower";
import type { StepDeps } from "../lifecycle/deps";
import type { FollowerSleep } from "../lifecycle/follower-sleep";
import { stopWritesOnHandBack } from "../lifecycle/stop-after-hand-back";

/** Passes per block time while waiting for a block: one is read within this fraction of a block of the head reaching it. */
const PASSES_PER_BLOCK = 4;
/** After a pass that read a block, the next waits this share of a block: the next block is not due before. */
const AFTER_A_BLOCK = 0.75;
/** The shortest wait between two passes, on chains with very short blocks. */
const MIN_PASS_INTERVAL_MS = 100;
/** With nothing in flight on the chain, the follower passes this rarely, until a transaction's job wakes it. */
const QUIET_PASS_INTERVAL_MS = 30_000;

/**
 * One pass of a chain's block follower (block-follower.ts), then another three quarters of a
 * block later after a pass that read a block, a quarter of a block later after one that did not,
 * for as long as the worker runs. With nothing PENDING or SUBMITTED on the chain it sleeps
 * (follower-sleep.ts) until a transaction's job wakes it, or QUIET_PASS_INTERVAL_MS. A chain
 * removed from the database ends its job.
 */
export function createFollowBlocksProcessor(shared: StepDeps, follower: BlockFollower, sleep: FollowerSleep): Processor<"followBlocks"> {
  return async ({ chainId }, { logger, handedBack }): Promise<RunAgain | { status: string }> => {
    const deps = handedBack ? stopWritesOnHandBack(shared, handedBack) : shared;
    const id = BigInt(chainId);
    // BAD_REQUEST: not configured (chain-directory.ts). A transaction's job revives it if it comes back.
    const handle = await deps.chains.get(id).catch((e: unknown) => {
      if (isAppError(e) && e.code === "BAD_REQUEST") return null;
      throw e;
    });
    if (!handle) return { status: "no such chain" };
    const { record } = handle;
    const pass = await follower.pass(deps, id, logger);
    if (pass.looked > 0) logger.debug(pass, "followed blocks");
    // About two passes per block instead of four: on a quiet chain the passes are all it costs.
    const wait = Math.max(MIN_PASS_INTERVAL_MS, pass.blocks > 0 ? record.blockTimeMs * AFTER_A_BLOCK : record.blockTimeMs / PASSES_PER_BLOCK);
    if (pass.looked > 0 || pass.counting > 0) return runAgainIn(wait);
    // Marked asleep before looking: a transaction submitted after the look finds the mark and wakes it.
    const quietMs = Math.max(wait, QUIET_PASS_INTERVAL_MS);
    await sleep.mark(id, 2 * quietMs);
    if (await deps.transactions.anyInFlightOn(id)) {
      await sleep.clear(id);
      return runAgainIn(wait);
    }
    // Woken while it looked (the mark cleared by a transaction's job): no sleep.
    return runAgainIn((await sleep.isMarked(id)) ? quietMs : wait);
  };
}
