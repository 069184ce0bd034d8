import { randomBytes } from "node:crypto";

let fallback: string | undefined;

/**
 * The id of this jest run, shared by every worker (the global setup exports it). A test file run
 * outside that setup gets an id of its own process instead.
 */
export function testRunId(): string {
  const fromSetup = process.env.RELAY_TEST_RUN_ID;
  if (fromSetup) return fromSetup;
  fallback ??= newRunId();
  return fallback;
}

export const newRunId = (): string => randomBytes(4).toString("hex");
