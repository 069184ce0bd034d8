/**
 * A process run by runProcess whose app asks to stop with code 75 once started; with `hang` its
 * stop never finishes (as a stalled worker's close does). For process.test.ts.
 */
import { createLogger } from "./logger";
import { runProcess } from "./process";

const hang = process.argv.includes("hang");
runProcess("stop-and-exit", async (control) => {
  const logger = createLogger({ name: "stop-and-exit", level: "silent" });
  setTimeout(() => control.stopAndExit(75), 50);
  // Open connections keep a real app alive; this stands in for them.
  if (hang) setInterval(() => undefined, 1000);
  return {
    logger,
    graceMs: 100,
    stop: () => (hang ? new Promise<void>(() => undefined) : Promise.resolve()),
  };
});
