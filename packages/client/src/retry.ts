/** When and how long to wait before trying a request again. */

export interface RetryOptions {
  /** Attempts in all, the first included (default 4; 1 = no retries). */
  maxAttempts?: number;
  /** Give up retrying once this much time has passed since the first attempt (default 30 s). */
  maxElapsedMs?: number;
  /** First back-off (default 250 ms); doubled each attempt, with full jitter. */
  baseDelayMs?: number;
  /** Longest single wait, Retry-After included (default 10 s). */
  maxDelayMs?: number;
}

export const DEFAULT_RETRY: Required<RetryOptions> = { maxAttempts: 4, maxElapsedMs: 30_000, baseDelayMs: 250, maxDelayMs: 10_000 };

/**
 * Retry-After as milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when
 * absent or unreadable. A date in the past is 0.
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value == null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/**
 * The wait before attempt `attempt + 1` (attempt counts from 1): Retry-After when the relay gave
 * one, else exponential back-off with full jitter; never more than maxDelayMs.
 */
export function backoffDelay(attempt: number, options: Required<RetryOptions>, retryAfterMs: number | undefined, random = Math.random): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, options.maxDelayMs);
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(random() * ceiling);
}

/** Whether an answer with this status may be tried again; 429 is refused before any work is done, 503 and no answer only for idempotent calls. */
export function isRetryable(status: number, idempotent: boolean): boolean {
  if (status === 429) return true;
  return idempotent && (status === 503 || status === 0);
}
