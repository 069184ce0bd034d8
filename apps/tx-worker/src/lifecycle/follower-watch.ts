import { reviveIfLost, wakeJob, type Producer } from "@relay/queue";
import type { FollowerSleep } from "./follower-sleep";

/** How often a process checks, from a transaction's job, that its chain's block follower is alive. */
const ENSURE_FOLLOWER_EVERY_MS = 10_000;
/** How often a process looks whether its chain's block follower sleeps (a Redis DEL). */
const WAKE_CHECK_EVERY_MS = 200;
/** How long a follower found running is watched for going to sleep (follower-sleep.ts). */
const ACTIVE_GRACE_MS = 3_000;

/**
 * What a transaction's steps call once it is SUBMITTED: its chain's block follower alive (revived
 * if lost) and awake (promoted if it sleeps for want of transactions in flight). Each check at most
 * once per its period per chain in this process: thousands of jobs share one look at Redis.
 */
export function createFollowerWatch(deps: { producer: Pick<Producer, "enqueue" | "queue">; sleep: FollowerSleep; now: () => number }) {
  const payloadOf = (chainId: bigint) => ({ v: 1 as const, chainId: chainId.toString() });
  const revive = atMostEvery(ENSURE_FOLLOWER_EVERY_MS, deps.now, (chainId) => reviveIfLost(deps.producer, "followBlocks", payloadOf(chainId)));
  const wake = atMostEvery(WAKE_CHECK_EVERY_MS, deps.now, async (chainId) => {
    if (await deps.sleep.clear(chainId)) await wakeJob(deps.producer, "followBlocks", payloadOf(chainId), { activeGraceMs: ACTIVE_GRACE_MS });
  });
  return {
    ensure: async (chainId: bigint): Promise<void> => {
      await Promise.all([revive(chainId), wake(chainId)]);
    },
  };
}

/**
 * `check` for a chain at most once per `periodMs` in this process; callers within the period wait
 * for the last check. A failed check is tried again at the next call; it never throws.
 */
function atMostEvery(periodMs: number, now: () => number, check: (chainId: bigint) => Promise<unknown>) {
  const checked = new Map<bigint, { at: number; done: Promise<void> }>();
  return (chainId: bigint): Promise<void> => {
    const last = checked.get(chainId);
    if (last && now() - last.at < periodMs) return last.done;
    const done = check(chainId).then(
      () => undefined,
      () => void checked.delete(chainId),
    );
    checked.set(chainId, { at: now(), done });
    return done;
  };
}
