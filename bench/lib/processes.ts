import { spawn, type ChildProcess } from "node:child_process";
import { APP_ENV, APP_NODE_FLAGS } from "@relay/core";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

const root = resolve(__dirname, "../..");
/** One webhook secret key for every app of this benchmark run (the gateway needs one to start). */
const WEBHOOK_SECRET_KEY = randomBytes(32).toString("base64");

/** Starts an app the way production does: its own Node process, configured by environment. */
export function startApp(entry: string, env: NodeJS.ProcessEnv): ChildProcess {
  // BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the apps under load.
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
  // BENCH_APPS=built runs an app's bundle (`pnpm build` first), as npm start and the image do;
  // otherwise its TypeScript sources through tsx, as the tests do.
  const built = process.env.BENCH_APPS === "built" ? /^(apps\/[^/]+)\/src\/main\.ts$/.exec(entry) : null;
  const target = built ? [resolve(root, built[1]!, "dist/main.js")] : ["--import", "tsx", resolve(root, entry)];
  const child = spawn(process.execPath, [...APP_NODE_FLAGS, ...nodeArgs, ...target], {
    cwd: root,
    env: { ...process.env, ...APP_ENV, LOG_LEVEL: "warn", WEBHOOK_SECRET_KEY, ...env },
    stdio: ["ignore", process.env.BENCH_APP_STDOUT ? "inherit" : "ignore", "inherit"],
  });
  process.on("exit", () => child.kill("SIGKILL"));
  return child;
}

export async function waitForHttp(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

/** For a server without a readiness route (the bare Express baseline): any HTTP answer means it listens. */
export async function waitForListening(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

export const stopApp = (child: ChildProcess) =>
  new Promise<void>((done) => {
    if (child.exitCode !== null) return done();
    child.once("exit", () => done());
    child.kill("SIGTERM");
  });

/** The peak resident set size of a running process (VmHWM), in MiB; NaN once it has ended. */
export function peakRssMiB(pid: number): number {
  try {
    const kib = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kib ? Number(kib) / 1024 : NaN;
  } catch {
    return NaN;
  }
}
