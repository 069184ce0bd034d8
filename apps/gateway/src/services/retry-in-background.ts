import { toError, type Logger } from "@relay/core";

export interface BackgroundRetryOptions {
  /** Waits before each try, in order; after the last failed try it gives up (logged). */
  delaysMs: readonly number[];
  logger: Logger;
  /** For the logs: what is being retried, with ids. */
  context: Record<string, unknown>;
}

/** Postgres back within minutes is the common case; after that the signing worker's sweep takes over. */
export const CLEANUP_DELAYS_MS = [500, 1000, 2000, 4000, 8000, 15_000, 30_000, 60_000, 60_000, 60_000] as const;

/**
 * Runs `task` in the background until it succeeds: for clean-ups a request could not finish
 * before answering (its database was unreachable). Timers do not keep the process alive.
 * Resolves when the task succeeded (true) or the retries ran out (false); never rejects.
 */
export function retryInBackground(task: () => Promise<unknown>, options: BackgroundRetryOptions): Promise<boolean> {
  return new Promise((resolve) => {
    const attempt = (i: number) => {
      if (i >= options.delaysMs.length) {
        options.logger.error(options.context, "background clean-up gave up; a periodic sweep will remove the record");
        resolve(false);
        return;
      }
      setTimeout(() => {
        task().then(
          () => {
            options.logger.info({ ...options.context, tries: i + 1 }, "background clean-up done");
            resolve(true);
          },
          (e: unknown) => {
            options.logger.warn({ ...options.context, err: toError(e), tries: i + 1 }, "background clean-up failed; retrying");
            attempt(i + 1);
          },
        );
      }, options.delaysMs[i]).unref();
    };
    attempt(0);
  });
}
