import { isAppError } from "@relay/core";
import { runAgainIn, type Processor, type RunAgain } from "@relay/queue";
import type { BlockFollower } from "../lifecycle/block-follower";
import type { StepDeps } from "../lifecycle/deps";
import { stopWritesOnHandBack } from "../lifecycle/stop-after-hand-back";

/** Passes per block time: a block is read within this fraction of a block of the head reaching it. */
const PASSES_PER_BLOCK = 4;
/** The shortest wait between two passes, on chains with very short blocks. */
const MIN_PASS_INTERVAL_MS = 100;

/**
 * One pass of a chain's block follower (block-follower.ts), then another a fraction of a block
 * later, for as long as the worker runs. A chain removed from the database ends its job.
 */
export function createFollowBlocksProcessor(shared: StepDeps, follower: BlockFollower): Processor<"followBlocks"> {
  return async ({ chainId }, { logger, handedBack }): Promise<RunAgain | { status: string }> => {
    const deps = handedBack ? stopWritesOnHandBack(shared, handedBack) : shared;
    // BAD_REQUEST: not configured (chain-directory.ts). A transaction's job revives it if it comes back.
    const handle = await deps.chains.get(BigInt(chainId)).catch((e: unknown) => {
      if (isAppError(e) && e.code === "BAD_REQUEST") return null;
      throw e;
    });
    if (!handle) return { status: "no such chain" };
    const { record } = handle;
    const pass = await follower.pass(deps, BigInt(chainId), logger);
    if (pass.looked > 0) logger.debug(pass, "followed blocks");
    return runAgainIn(Math.max(MIN_PASS_INTERVAL_MS, record.blockTimeMs / PASSES_PER_BLOCK));
  };
}
