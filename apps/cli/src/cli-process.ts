import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** Test support: the real binary (main.ts) in its own process, as `npm run relay` runs it. */

const MAIN = resolve(__dirname, "main.ts");
/** A directory that never holds quick start keys: the CLI's own package. */
const NO_DEV_KEYS = resolve(__dirname, "..");
// Resolved here, not from the working directory, which a test may point anywhere.
const TSX = pathToFileURL(require.resolve("tsx")).href;

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface RunOptions {
  stdin?: string;
  /**
   * The directory it runs in, where it looks for the quick start's `.dev/` keys. Default: one
   * without them, so that a developer's own `npm start` keys do not change what a test sees.
   */
  cwd?: string;
}

/** What the child takes from the process that starts it: only where to find executables. */
export interface Inherited {
  PATH: string;
}

export type RunRelay = (args: string[], env: Record<string, string>, options?: RunOptions) => Promise<ProcessResult>;

/** A runner of `relay <args>` with only `inherited` and the environment given to each run. */
export const createRelayRunner =
  (inherited: Inherited): RunRelay =>
  (args, env, options = {}) =>
    spawnRelay(args, { ...inherited, ...env }, options);

function spawnRelay(args: string[], env: Record<string, string>, options: RunOptions): Promise<ProcessResult> {
  const started = Date.now();
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ["--import", TSX, MAIN, ...args], {
      cwd: options.cwd ?? NO_DEV_KEYS,
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr, ms: Date.now() - started }));
    child.stdin.end(options.stdin ?? "");
  });
}
