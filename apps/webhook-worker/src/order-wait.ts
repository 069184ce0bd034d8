/** How soon to look again when an older delivery of the same subject, being tried now, holds this one back. */
const ORDER_WAIT_MS = 250;
/**
 * The longest a held-back delivery waits before it looks again when the older one waits for a retry:
 * the older one is normally tried on its schedule, but an operator may retry it sooner.
 */
const MAX_ORDER_WAIT_MS = 60_000;

/**
 * How long a held-back delivery waits: until just after the older one's next attempt (polling
 * every 250 ms while a receiver is down for a day cost a read and a Redis move four times a second
 * per waiting delivery), at most a minute, and 250 ms while the older one is being tried.
 */
export function orderWaitMs(heldBackUntil: Date | null, now: number): number {
  const olderDueIn = (heldBackUntil?.getTime() ?? 0) - now;
  return Math.min(MAX_ORDER_WAIT_MS, Math.max(ORDER_WAIT_MS, olderDueIn + ORDER_WAIT_MS));
}
