import { toError, type Logger } from "@relay/core";

export interface BackgroundRetryOptions {
  /** Waits before each try, in order; after the last failed try it gives up (logged). */
  delaysMs: readonly number[];
  logger: Logger;
  /**
   * Clean-ups waiting at once, at most. During a long outage under load every failed request adds
   * one; past this many, a new one is left to the periodic sweep instead of holding memory.
   */
  maxOutstanding?: number;
}

export interface BackgroundRetrier {
  /**
   * Runs `task` in the background until it succeeds. Resolves true when it did, false when the
   * retries ran out or too many were waiting already; never rejects.
   */
  retry(task: () => Promise<unknown>, context: Record<string, unknown>): Promise<boolean>;
  /** Clean-ups waiting for their next try. */
  outstanding(): number;
}

/** Postgres back within minutes is the common case; after that the signing worker's sweep takes over. */
export const CLEANUP_DELAYS_MS = [500, 1000, 2000, 4000, 8000, 15_000, 30_000, 60_000, 60_000, 60_000] as const;
const MAX_OUTSTANDING = 10_000;
const CAPPED_LOG_EVERY_MS = 60_000;

/**
 * Retries clean-ups a request could not finish before answering (its database was unreachable).
 * Timers do not keep the process alive. One outage must not flood the log: a clean-up logs its
 * first failure and its outcome, the tries between at debug level, and the cap once a minute.
 */
export function createBackgroundRetrier(options: BackgroundRetryOptions): BackgroundRetrier {
  const { delaysMs, logger } = options;
  const maxOutstanding = options.maxOutstanding ?? MAX_OUTSTANDING;
  let outstanding = 0;
  let skipped = 0;
  let cappedLoggedAt = -Infinity;

  const skip = (context: Record<string, unknown>): Promise<boolean> => {
    skipped++;
    if (Date.now() - cappedLoggedAt >= CAPPED_LOG_EVERY_MS) {
      cappedLoggedAt = Date.now();
      logger.warn({ ...context, outstanding, skipped }, "too many background clean-ups waiting; the periodic sweep will remove the records of the ones skipped");
    }
    return Promise.resolve(false);
  };

  const retry = (task: () => Promise<unknown>, context: Record<string, unknown>): Promise<boolean> => {
    if (outstanding >= maxOutstanding) return skip(context);
    outstanding++;
    return new Promise<boolean>((resolve) => {
      const finish = (done: boolean) => {
        outstanding--;
        resolve(done);
      };
      const attempt = (i: number) => {
        if (i >= delaysMs.length) {
          logger.error({ ...context, tries: i }, "background clean-up gave up; a periodic sweep will remove the record");
          finish(false);
          return;
        }
        setTimeout(() => {
          task().then(
            () => {
              if (i > 0) logger.info({ ...context, tries: i + 1 }, "background clean-up done");
              finish(true);
            },
            (e: unknown) => {
              const level = i === 0 ? "warn" : "debug";
              logger[level]({ ...context, err: toError(e), tries: i + 1 }, "background clean-up failed; retrying");
              attempt(i + 1);
            },
          );
        }, delaysMs[i]).unref();
      };
      attempt(0);
    });
  };

  return { retry, outstanding: () => outstanding };
}
