import { toError } from "./errors";
import type { Logger } from "./logger";

/**
 * The life of an app's process: `start` builds and runs it and returns how to stop it. SIGTERM or
 * SIGINT stops it once (a second signal does not interrupt the first stop), within `graceMs`
 * or the process exits anyway; a failure to start ends the process with one line naming the app.
 * A rejected promise nobody awaited is logged, not fatal: one bad request must not end the process.
 */
export function runProcess(name: string, start: () => Promise<{ logger: Logger; stop: () => Promise<void> }>, graceMs = 30_000): void {
  start()
    .then(({ logger, stop }) => {
      let stopping = false;
      const onSignal = (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, "stopping: finishing work in flight");
        setTimeout(() => {
          logger.error({ graceMs }, "did not stop in time; exiting");
          process.exit(1);
        }, graceMs).unref();
        stop().then(
          () => {
            logger.info("stopped");
            process.exit(0);
          },
          (e: unknown) => {
            logger.error({ err: toError(e) }, "stop failed");
            process.exit(1);
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
