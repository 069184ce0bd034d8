import { toError } from "./errors";
import { endLogger, type Logger } from "./logger";
import { limitHeapGrowth } from "./memory";

/** What an app's start-up hands to runProcess. */
export interface RunningApp {
  logger: Logger;
  /**
   * Stops taking work, finishes or hands back the work in flight within `graceMs`, closes the
   * connections. Resolving means a clean stop: the process exits 0.
   */
  stop: () => Promise<void>;
  /** The app's shutdown grace period (SHUTDOWN_GRACE_MS). */
  graceMs: number;
}

/** Time beyond the grace period for closing connections before the process gives up on them. */
export const CLOSE_MARGIN_MS = 10_000;

/**
 * The life of an app's process: `start` builds and runs it and returns how to stop it. SIGTERM or
 * SIGINT stops it once (a second signal does not interrupt the first stop); if the stop has not
 * finished `graceMs` + CLOSE_MARGIN_MS after the signal, the process exits 1 anyway. A failure to
 * start ends the process with one line naming the app. A rejected promise nobody awaited is
 * logged, not fatal: one bad request must not end the process. The heap's growth is limited
 * first (memory.ts).
 */
export function runProcess(name: string, start: () => Promise<RunningApp>): void {
  limitHeapGrowth();
  start()
    .then(({ logger, stop, graceMs }) => {
      let stopping = false;
      const onSignal = (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal, graceMs }, "stopping: taking no new work, finishing work in flight");
        setTimeout(() => {
          logger.error({ graceMs, closeMarginMs: CLOSE_MARGIN_MS }, "did not stop in time; exiting");
          process.exit(1);
        }, graceMs + CLOSE_MARGIN_MS).unref();
        const exit = (code: number) => void endLogger(logger).then(() => process.exit(code));
        stop().then(
          () => {
            logger.info("stopped");
            exit(0);
          },
          (e: unknown) => {
            logger.error({ err: toError(e) }, "stop failed");
            exit(1);
          },
        );
      };
      process.on("SIGTERM", () => onSignal("SIGTERM"));
      process.on("SIGINT", () => onSignal("SIGINT"));
      process.on("unhandledRejection", (reason) => logger.error({ err: toError(reason) }, "unhandled rejection"));
    })
    .catch((e: unknown) => {
      // Start-up failures (bad configuration, unreachable services) end the process with one clear line.
      process.stderr.write(`${name} failed to start: ${toError(e).message}\n`);
      process.exit(1);
    });
}
