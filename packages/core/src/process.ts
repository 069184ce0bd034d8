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

/** What an app's start-up may ask of runProcess while it runs. */
export interface ProcessControl {
  /**
   * Stops the app as SIGTERM would, then exits with `code` (a clean stop) instead of 0: for an app
   * that finds itself unable to go on and wants its supervisor to start a fresh process.
   */
  stopAndExit(code: number): void;
}

/**
 * The exit code of a process that stopped cleanly because it could not go on (EX_TEMPFAIL): its
 * supervisor should start it again. A worker whose queue connection stalled exits with it.
 */
export const STALLED_EXIT_CODE = 75;

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
export function runProcess(name: string, start: (control: ProcessControl) => Promise<RunningApp>): void {
  limitHeapGrowth();
  // Asked before the start-up has finished: carried out once it has.
  let stopWith: (reason: string, code: number) => void = (reason, code) => (early = { reason, code });
  let early: { reason: string; code: number } | undefined;
  start({ stopAndExit: (code) => stopWith("asked by the app", code) })
    .then(({ logger, stop, graceMs }) => {
      let stopping = false;
      const onSignal = (signal: string, cleanExitCode = 0) => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal, graceMs }, "stopping: taking no new work, finishing work in flight");
        setTimeout(() => {
          // A stop the app asked for keeps its exit code (a stalled worker's own connections are
          // what cannot close); a signal's stop that hangs is a failure.
          const code = cleanExitCode === 0 ? 1 : cleanExitCode;
          logger.error({ graceMs, closeMarginMs: CLOSE_MARGIN_MS, exitCode: code }, "did not stop in time; exiting");
          process.exit(code);
        }, graceMs + CLOSE_MARGIN_MS).unref();
        const exit = (code: number) => void endLogger(logger).then(() => process.exit(code));
        stop().then(
          () => {
            logger.info("stopped");
            exit(cleanExitCode);
          },
          (e: unknown) => {
            logger.error({ err: toError(e) }, "stop failed");
            exit(1);
          },
        );
      };
      stopWith = (reason, code) => onSignal(reason, code);
      if (early) stopWith(early.reason, early.code);
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
