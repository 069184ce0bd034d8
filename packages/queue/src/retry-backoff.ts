import type { MinimalJob } from "bullmq";

/**
 * Retries of jobs that live as long as their work (a transaction's job, a delivery's job). Such a
 * job puts itself back many times over hours (RunAgain), and BullMQ counts its failed runs over
 * its whole life: with plain exponential back-off, the tenth transient fault of a long life waited
 * 2^9 s, the eleventh 17 min, and the twelfth failed the job for good. Here the wait doubles from
 * the job's `backoff.delay` but stops at RETRY_DELAY_CAP_MS, and such jobs have attempts enough
 * never to run out (UNTIL_FINISHED_ATTEMPTS): a transient fault costs at most the cap, however old
 * the job.
 */
export const CAPPED_EXPONENTIAL = "capped-exponential";

/** The longest wait before a retry of a long-lived job. */
export const RETRY_DELAY_CAP_MS = 30_000;

/** Attempts of a long-lived job: at the capped wait, more than a month of transient faults in a row. */
export const UNTIL_FINISHED_ATTEMPTS = 100_000;

/** The wait before retry `attemptsMade` + 1: doubling from `baseMs`, at most `capMs`, up to a fifth sooner (jitter). */
export function cappedExponentialDelay(attemptsMade: number, baseMs: number, capMs = RETRY_DELAY_CAP_MS, random = Math.random): number {
  const full = Math.min(capMs, baseMs * 2 ** Math.min(30, Math.max(0, attemptsMade - 1)));
  return Math.round(full * (1 - 0.2 * random()));
}

/** BullMQ's `settings.backoffStrategy`: called for back-off types it does not know itself. */
export function backoffStrategy(attemptsMade: number, type?: string, _err?: Error, job?: MinimalJob): number {
  if (type !== CAPPED_EXPONENTIAL) throw new Error(`Unknown backoff strategy ${type ?? "(none)"}`);
  const backoff = job?.opts.backoff;
  const baseMs = typeof backoff === "object" && backoff.delay ? backoff.delay : 1000;
  return cappedExponentialDelay(attemptsMade, baseMs);
}
