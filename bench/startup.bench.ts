/**
 * Start-up time and resident memory of each app, run from its TypeScript sources through tsx (as
 * the tests run them) and from its bundle with node (as `npm start` and the image run them), in
 * the same run.
 *
 *   pnpm bench:startup [--runs 3] [--settle 5] [--no-build]
 *
 * Start-up: spawn → the gateway's /ready answering 200, or the worker's "… worker started" log
 * line. RSS: the process's resident set `--settle` seconds after the spawn (VmRSS, Linux). Medians
 * of `--runs` starts, one process at a time, the two ways alternating, against a fresh migrated
 * database and an idle queue prefix. Builds the bundles first unless `--no-build`.
 */
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { APP_ENV, APP_NODE_FLAGS } from "@relay/core";
import { createTestDatabase, testQueuePrefix } from "@relay/testing";
import { flag, line, numberArg } from "./lib/args";
import { deleteQueueKeys, freePort } from "./lib/relay";

const runs = numberArg("runs", 3);
const settleMs = numberArg("settle", 5) * 1000;
const root = resolve(__dirname, "..");

type Way = "tsx" | "built";
const APPS = [
  { name: "gateway", ready: "/ready" },
  { name: "signing-worker", ready: "signing worker started" },
  { name: "tx-worker", ready: "tx worker started" },
  { name: "webhook-worker", ready: "webhook worker started" },
] as const;

const argsFor = (app: string, way: Way) =>
  way === "tsx" ? [...APP_NODE_FLAGS, "--import", "tsx", `apps/${app}/src/main.ts`] : [...APP_NODE_FLAGS, `apps/${app}/dist/main.js`];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

function residentMiB(pid: number): number {
  const kib = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  if (!kib) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kib) / 1024;
}

async function waitForReady(url: string, exited: () => boolean): Promise<void> {
  for (;;) {
    if (exited()) throw new Error(`the gateway exited before ${url} answered`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await sleep(20);
  }
}

/** One start: milliseconds from spawn to ready, and MiB resident `settleMs` after the spawn. */
async function startOnce(app: (typeof APPS)[number], way: Way, env: NodeJS.ProcessEnv): Promise<{ readyMs: number; rssMiB: number }> {
  const port = await freePort();
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, argsFor(app.name, way), { cwd: root, env: { ...env, ...APP_ENV, PORT: String(port) }, stdio: ["ignore", "pipe", "inherit"] });
  let exited = false;
  const ended = new Promise<void>((done) =>
    child.once("exit", () => {
      exited = true;
      done();
    }),
  );
  try {
    if (app.ready.startsWith("/")) {
      createInterface({ input: child.stdout! }).resume();
      await waitForReady(`http://127.0.0.1:${port}${app.ready}`, () => exited);
    } else {
      await new Promise<void>((done, fail) => {
        createInterface({ input: child.stdout! }).on("line", (text) => {
          if (text.includes(`"msg":"${app.ready}"`)) done();
        });
        void ended.then(() => fail(new Error(`${app.name} exited before logging "${app.ready}"`)));
      });
    }
    const readyMs = performance.now() - spawnedAt;
    await sleep(Math.max(0, settleMs - (performance.now() - spawnedAt)));
    return { readyMs, rssMiB: residentMiB(child.pid!) };
  } finally {
    child.kill("SIGTERM");
    await ended;
  }
}

async function main() {
  if (!flag("no-build")) {
    const build = spawnSync(process.execPath, ["--import", "tsx", "scripts/build/build.ts"], { cwd: root, stdio: "inherit" });
    if (build.status !== 0) throw new Error("pnpm build failed");
  }
  const database = await createTestDatabase({ migrate: true });
  const prefix = testQueuePrefix("bench-startup");
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: "development",
    LOG_LEVEL: "info",
    DATABASE_URL: database.url,
    REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
    QUEUE_PREFIX: prefix,
    HOST: "127.0.0.1",
    KEY_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
    SHUTDOWN_GRACE_MS: "2000",
  };
  try {
    line("app", "start-up tsx → built (ratio) | RSS after settle tsx → built (ratio)");
    for (const app of APPS) {
      const results: Record<Way, { readyMs: number; rssMiB: number }[]> = { tsx: [], built: [] };
      for (let i = 0; i < runs; i++) {
        for (const way of ["tsx", "built"] as const) results[way].push(await startOnce(app, way, env));
      }
      const ready = { tsx: median(results.tsx.map((r) => r.readyMs)), built: median(results.built.map((r) => r.readyMs)) };
      const rss = { tsx: median(results.tsx.map((r) => r.rssMiB)), built: median(results.built.map((r) => r.rssMiB)) };
      line(
        app.name,
        `${(ready.tsx / 1000).toFixed(2)} s → ${(ready.built / 1000).toFixed(2)} s (${(ready.built / ready.tsx).toFixed(2)}) | ` +
          `${rss.tsx.toFixed(0)} MiB → ${rss.built.toFixed(0)} MiB (${(rss.built / rss.tsx).toFixed(2)})`,
      );
    }
    line("runs, settle", `${runs} of each, median; RSS ${settleMs / 1000} s after spawn`);
  } finally {
    await deleteQueueKeys(prefix);
    await database.drop();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});
