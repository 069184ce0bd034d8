import type { Redis } from "@relay/queue";

/**
 * Whether a chain's block follower sleeps: with nothing PENDING or SUBMITTED on its chain it passes
 * once per quiet period instead of every block, and the first transaction submitted after wakes it.
 *
 * The follower marks itself asleep before it looks for transactions in flight, so a transaction
 * accepted after that look finds the mark when its job wakes the follower; one accepted before it
 * is seen by the look. Whoever clears the mark (a DEL answered 1) wakes the follower's job; the
 * follower, once it has looked, sleeps only if the mark is still there.
 */
export function createFollowerSleep(redis: Pick<Redis, "set" | "del" | "exists">, prefix: string) {
  const keyOf = (chainId: bigint) => `${prefix}:followBlocks:asleep:${chainId}`;
  return {
    /** Marked asleep for at most `ms` (the mark lapses with the sleep it stands for). */
    mark: async (chainId: bigint, ms: number): Promise<void> => {
      await redis.set(keyOf(chainId), "1", "PX", Math.max(1, Math.ceil(ms)));
    },
    /** Whether the mark is still there: nobody has woken the follower since it was set. */
    isMarked: async (chainId: bigint): Promise<boolean> => (await redis.exists(keyOf(chainId))) === 1,
    /** Clears the mark; true when the follower was marked asleep. */
    clear: async (chainId: bigint): Promise<boolean> => (await redis.del(keyOf(chainId))) === 1,
  };
}

export type FollowerSleep = ReturnType<typeof createFollowerSleep>;
