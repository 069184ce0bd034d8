import { spawn, type ChildProcess } from "node:child_process";
import { APP_ENV, APP_NODE_FLAGS } from "@relay/core";
import { closeSync, createWriteStream, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";

const STOP_TIMEOUT_MS = 35_000;

export interface AppSpec {
  name: string;
  /** The JavaScript file node runs: an app's bundle from `pnpm build` (apps/<app>/dist/main.js). */
  entry: string;
  env: NodeJS.ProcessEnv;
}

/**
 * The pause before restarting an app that died: `firstMs`, doubled at each restart up to `maxMs`.
 * An app that had run `resetAfterMs` before it died starts again from `firstMs`: it was working,
 * and what ended it (Postgres restarted, a laptop that slept) says nothing about a crash loop.
 */
export interface RestartBackoff {
  firstMs: number;
  maxMs: number;
  resetAfterMs: number;
}

export const DEFAULT_BACKOFF: RestartBackoff = { firstMs: 1_000, maxMs: 30_000, resetAfterMs: 60_000 };

export interface SuperviseOptions {
  logDir: string;
  say: (line: string) => void;
  backoff?: RestartBackoff;
  /** Told of every app process as it is spawned, restarts included (the orphan reaper). */
  onSpawn?: (child: ChildProcess) => void;
}

/**
 * Runs the apps as child processes with their JSON logs in files, restarts one that dies (after
 * a pause, RestartBackoff), and stops all of them on shutdown. A development convenience; production
 * runs each app under its own supervisor (docker-compose, systemd, Kubernetes).
 */
export function supervise(apps: AppSpec[], { logDir, say, backoff = DEFAULT_BACKOFF, onSpawn }: SuperviseOptions) {
  mkdirSync(logDir, { recursive: true });
  const children = new Map<string, ChildProcess>();
  let stopping = false;

  const start = (app: AppSpec, restarts: number) => {
    const logFile = join(logDir, `${app.name}.log`);
    // The app writes its log to the file itself, not through this process: should the quick start
    // die, an app stopped by the orphan reaper still logs its shutdown instead of failing to write.
    const logFd = openSync(logFile, "a");
    const log = createWriteStream(logFile, { flags: "a" });
    const startedAt = Date.now();
    const child = spawn(process.execPath, [...APP_NODE_FLAGS, app.entry], { env: { ...APP_ENV, ...app.env }, stdio: ["ignore", logFd, "pipe"] });
    closeSync(logFd);
    onSpawn?.(child);
    child.stderr?.on("data", (chunk: Buffer) => {
      log.write(chunk);
      say(`[${app.name}] ${chunk.toString().trimEnd()}`);
    });
    children.set(app.name, child);
    child.once("close", () => log.end());
    child.on("exit", (code, signal) => {
      children.delete(app.name);
      if (stopping) return;
      const attempt = Date.now() - startedAt >= backoff.resetAfterMs ? 0 : restarts;
      const pause = Math.min(backoff.maxMs, backoff.firstMs * 2 ** attempt);
      say(`[${app.name}] exited (${signal ?? code}); restarting in ${pause / 1000} s (log: ${logFile})`);
      setTimeout(() => {
        if (!stopping) start(app, attempt + 1); // a restart due after stop() would outlive it
      }, pause).unref();
    });
  };

  for (const app of apps) start(app, 0);

  return {
    /** SIGTERM to every app, each given the time it takes to stop gracefully (docs/operations.md). */
    stop: async () => {
      stopping = true;
      await Promise.all(
        [...children.values()].map(
          (child) =>
            new Promise<void>((resolve) => {
              // Beyond the apps' own bound (SHUTDOWN_GRACE_MS, 20 s by default, plus 10 s to close).
              const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
              child.once("exit", () => {
                clearTimeout(timer);
                resolve();
              });
              child.kill("SIGTERM");
            }),
        ),
      );
    },
  };
}
