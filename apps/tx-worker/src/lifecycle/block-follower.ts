import { toError, type Logger } from "@relay/core";
import { RunAgain } from "@relay/queue";
import { settleIfMined } from "./mined";
import type { StepDeps } from "./deps";

interface TransactionKey {
  projectId: string;
  transactionId: string;
}

/** What this process's follower of one chain has read: a block read again (a reorganisation) by its hash differing. */
interface ChainFollow {
  /** The newest block handled. */
  last: number;
  /** The index's restart count when `last` was read (receipt-index.ts). */
  restarts: number;
  /** Hashes of the blocks handled, by number, for the blocks the index may show again. */
  handled: Map<number, string>;
  /** Transactions mined in a block still counting its confirmations, by that block. */
  counting: Map<number, TransactionKey[]>;
}

/** Blocks whose hashes are remembered: more than the index reads again after a reorganisation. */
const HANDLED_KEPT = 64;

export interface FollowPass {
  /** New blocks read. */
  blocks: number;
  /** SUBMITTED transactions looked at (an attempt mined in a new block, or confirmations reached). */
  looked: number;
  failed: number;
  /** Transactions mined and still counting their confirmations after this pass. */
  counting: number;
}

/**
 * The receipts of a chain, followed once per block for every transaction in flight instead of by
 * each transaction's job every block (docs/architecture.md, "Following blocks"). A pass reads the
 * blocks new since the last (the chain view's receipt index has read their receipts already),
 * finds which SUBMITTED transactions have an attempt in them in one statement, and settles those
 * as their own job would (mined.ts, settleIfMined): CONFIRMED, REVERTED or CANCELLED once the block
 * has the chain's confirmations, noted as mined until then. The transactions noted are looked at
 * again once their block has its confirmations, when settleIfMined asks the node whether the block
 * is still canonical (a reorganisation sends them back to following).
 *
 * What a pass misses (a block the index restarted past, this process restarted) each
 * transaction's own job still finds at its slower look (follow.ts).
 */
export function createBlockFollower() {
  const chains = new Map<string, ChainFollow>();

  const settleOne = async (deps: StepDeps, chainId: bigint, key: TransactionKey, logger: Logger): Promise<number | null> => {
    const tx = await deps.transactions.findById(key.projectId, key.transactionId);
    if (!tx || tx.status !== "SUBMITTED" || tx.nonce === null || tx.fromAddress === null) return null;
    const handle = await deps.chains.get(chainId);
    const attempts = await deps.transactions.attempts(tx.projectId, tx.id);
    const bound = { ...tx, fromAddress: tx.fromAddress, nonce: tx.nonce };
    const outcome = await settleIfMined(deps, handle, bound, attempts, logger.child({ transactionId: tx.id }));
    // Still counting confirmations: the block it is noted in (settleIfMined noted it).
    return outcome instanceof RunAgain && bound.minedBlockNumber !== null ? Number(bound.minedBlockNumber) : null;
  };

  return {
    /** One pass over the blocks of `chainId` new since the last pass in this process. */
    pass: async (deps: StepDeps, chainId: bigint, logger: Logger): Promise<FollowPass> => {
      const id = chainId.toString();
      const handle = await deps.chains.get(chainId);
      const { view, record: chain } = handle;
      const state = chains.get(id) ?? { last: 0, restarts: -1, handled: new Map(), counting: new Map() };
      chains.set(id, state);

      let read = await view.blocksAfter(state.last);
      // The index restarted: the blocks it keeps now may replace ones handled at the same numbers.
      if (read.restarts !== state.restarts && state.last > 0) read = await view.blocksAfter(0);
      state.restarts = read.restarts;
      const fresh = read.blocks.filter((b) => state.handled.get(b.number) !== b.blockHash);
      for (const block of fresh) {
        state.handled.set(block.number, block.blockHash);
        state.last = Math.max(state.last, block.number);
      }
      for (const number of state.handled.keys()) if (number <= state.last - HANDLED_KEPT) state.handled.delete(number);

      const mined = await deps.transactions.submittedWithAttemptIn(chainId, fresh.flatMap((b) => b.hashes));
      const head = await view.head();
      const due: TransactionKey[] = [];
      for (const [block, keys] of state.counting) {
        if (head - block + 1 < chain.confirmations) continue;
        due.push(...keys);
        state.counting.delete(block);
      }
      const keys = new Map([...mined, ...due].map((k) => [`${k.projectId}/${k.transactionId}`, k]));

      let failed = 0;
      await Promise.all(
        [...keys.values()].map(async (key) => {
          try {
            const counting = await settleOne(deps, chainId, key, logger);
            if (counting !== null) state.counting.set(counting, [...(state.counting.get(counting) ?? []), key]);
          } catch (e) {
            // Its own job settles it at its next look.
            failed++;
            logger.warn({ err: toError(e), transactionId: key.transactionId }, "could not settle a transaction mined in a followed block");
          }
        }),
      );
      let counting = 0;
      for (const waiting of state.counting.values()) counting += waiting.length;
      return { blocks: fresh.length, looked: keys.size, failed, counting };
    },
  };
}

export type BlockFollower = ReturnType<typeof createBlockFollower>;
