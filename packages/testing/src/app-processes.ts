import { spawn, type ChildProcess } from "node:child_process";
import { APP_ENV, APP_NODE_FLAGS } from "@relay/core";
import { testDatabasePooler } from "@relay/config";
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import type { Kek } from "@relay/custody";

/**
 * The apps as production runs them, separate processes configured through the environment only,
 * but from their sources (`node --import tsx apps/<app>/src/main.ts`: no build to redo after a
 * change; scripts/build/production-layout.int.test.ts starts the bundles), for tests that kill,
 * restart or multiply them. A group remembers what it started; `stopAll()` in afterAll ends every
 * one of them.
 */

const ROOT = resolve(__dirname, "../../..");
// By path, not by import: the apps stay above this package (apps import packages, never the reverse).
const ENTRIES = {
  gateway: "apps/gateway/src/main.ts",
  "signing-worker": "apps/signing-worker/src/main.ts",
  "tx-worker": "apps/tx-worker/src/main.ts",
  "webhook-worker": "apps/webhook-worker/src/main.ts",
} as const;
type WorkerKind = Exclude<keyof typeof ENTRIES, "gateway">;
/** The line each worker logs once its queues are connected. */
const STARTED: Record<WorkerKind, string> = {
  "signing-worker": "signing worker started",
  "tx-worker": "tx worker started",
  "webhook-worker": "webhook worker started",
};
// Generous: tsx compiles each app at start, and test machines are often busy.
const START_TIMEOUT_MS = 60_000;
/** Beyond the SHUTDOWN_GRACE_MS given below plus the apps' 10 s for closing connections. */
const STOP_GRACE_MS = 20_000;
const TAIL_LINES = 40;

/** One pino line as the app wrote it (level 30 = info, 40 = warn, 50 = error). */
export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

export interface AppProcess {
  name: string;
  pid: number;
  /** Every JSON log line from stdout so far, in order. */
  logs: LogLine[];
  /** Resolves when the process has ended; never rejects. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  hasExited(): boolean;
  /** Resolves with the first log line (past or future) matching `predicate`. */
  waitForLog(predicate: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** Sends the signal now, without waiting (e.g. SIGKILL from inside a proxy's request handler). */
  kill(signal: NodeJS.Signals): void;
  /** Sends the signal and waits for the end (SIGKILL after a grace period). */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The last lines of output, stderr included, for error messages. */
  tail(): string;
}

export interface ProcessGroupSettings {
  databaseUrl: string;
  queuePrefix: string;
  /** The KEK the test sealed its wallets with; given to signing and tx workers only. */
  kek: Kek;
  /** WEBHOOK_SECRET_KEY of every gateway and webhook-worker of the group (one random key if not given). */
  webhookKey?: Buffer;
  redisUrl?: string;
  /** REDIS_CLUSTER_NODES of every app of the group (a test cluster's seeds); unset: REDIS_URL alone. */
  redisClusterNodes?: string;
}

export interface StartOptions {
  logLevel?: string;
  /** Variables added or overridden (TX_CONCURRENCY, SHUTDOWN_GRACE_MS, …). */
  env?: Record<string, string>;
}

// Children must not outlive the test process, even when afterAll never runs (interrupted run).
const live = new Set<ChildProcess>();
const killLive = () => {
  for (const child of live) child.kill("SIGKILL");
};

export function createProcessGroup(settings: ProcessGroupSettings) {
  const started: AppProcess[] = [];
  const webhookKey = (settings.webhookKey ?? randomBytes(32)).toString("base64");

  const commonEnv = (logLevel: string): Record<string, string> => {
    const env: Record<string, string> = {
      NODE_ENV: "test",
      DATABASE_URL: settings.databaseUrl,
      // The pooled run's databases are behind PgBouncer (src/run-pooler.ts): the apps are told so.
      DATABASE_POOLER: testDatabasePooler(),
      REDIS_URL: settings.redisUrl ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
      QUEUE_PREFIX: settings.queuePrefix,
      ...(settings.redisClusterNodes ? { REDIS_CLUSTER_NODES: settings.redisClusterNodes } : {}),
      LOG_LEVEL: logLevel,
      // Short, so that stopping a test's processes never waits long; tests of shutdown set their own.
      SHUTDOWN_GRACE_MS: "5000",
      ...APP_ENV,
    };
    // Only what node and tsx need from the test's own environment, not the test's variables.
    for (const name of ["PATH", "HOME", "TMPDIR"]) {
      const value = process.env[name];
      if (value !== undefined) env[name] = value;
    }
    return env;
  };

  const secretsOf = (kind: WorkerKind): Record<string, string> => {
    if (kind === "webhook-worker") return { WEBHOOK_SECRET_KEY: webhookKey, WEBHOOK_ALLOW_PRIVATE: "true" };
    const key = settings.kek.keys.get(settings.kek.activeKeyId);
    if (!key) throw new Error(`the KEK has no key ${settings.kek.activeKeyId}`);
    return { KEY_ENCRYPTION_KEY: key.toString("base64"), KEY_ENCRYPTION_KEY_ID: settings.kek.activeKeyId };
  };

  const launch = (name: string, app: keyof typeof ENTRIES, env: Record<string, string>): AppProcess => {
    const child = spawn(process.execPath, [...APP_NODE_FLAGS, "--import", "tsx", ENTRIES[app]], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    if (child.pid === undefined) throw new Error(`${name} did not start`);
    if (live.size === 0) process.on("exit", killLive);
    live.add(child);

    const logs: LogLine[] = [];
    const output: string[] = [];
    const waiters = new Set<(line: LogLine) => void>();
    const remember = (text: string) => {
      output.push(text);
      if (output.length > TAIL_LINES) output.shift();
    };
    createInterface({ input: child.stdout! }).on("line", (text) => {
      remember(text);
      let line: LogLine;
      try {
        line = JSON.parse(text) as LogLine;
      } catch {
        return;
      }
      logs.push(line);
      for (const waiter of waiters) waiter(line);
    });
    createInterface({ input: child.stderr! }).on("line", (text) => remember(`[stderr] ${text}`));

    let ended = false;
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
      child.once("exit", (code, signal) => {
        ended = true;
        live.delete(child);
        if (live.size === 0) process.removeListener("exit", killLive);
        done({ code, signal });
      });
    });
    const tail = () => output.join("\n");

    const proc: AppProcess = {
      name,
      pid: child.pid,
      logs,
      exited,
      hasExited: () => ended,
      tail,
      waitForLog: (predicate, timeoutMs = START_TIMEOUT_MS) => {
        const seen = logs.find(predicate);
        if (seen) return Promise.resolve(seen);
        return new Promise<LogLine>((resolve, reject) => {
          const finish = (error?: Error, line?: LogLine) => {
            clearTimeout(timer);
            waiters.delete(onLine);
            if (error) reject(error);
            else resolve(line!);
          };
          const onLine = (line: LogLine) => {
            if (predicate(line)) finish(undefined, line);
          };
          const timer = setTimeout(() => finish(new Error(`${name}: no matching log line within ${timeoutMs} ms:\n${tail()}`)), timeoutMs);
          waiters.add(onLine);
          void exited.then(({ code, signal }) => {
            if (waiters.has(onLine)) finish(new Error(`${name} ended (${signal ?? code}) while waited for:\n${tail()}`));
          });
        });
      },
      kill: (signal) => {
        if (!ended) child.kill(signal);
      },
      stop: async (signal = "SIGTERM") => {
        if (!ended) {
          child.kill(signal);
          const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
          await exited;
          clearTimeout(timer);
        }
        return exited;
      },
    };
    started.push(proc);
    return proc;
  };

  /**
   * A worker of `kind`, once it has logged that it started (its queues are connected). That line
   * is at info level, so the default level here is info. Signing and tx workers get the KEK,
   * webhook workers the group's webhook key and leave to deliver to loopback.
   */
  const startWorker = async (kind: WorkerKind, name: string, options: StartOptions = {}): Promise<AppProcess> => {
    const proc = launch(name, kind, { ...commonEnv(options.logLevel ?? "info"), ...secretsOf(kind), ...options.env });
    await proc.waitForLog((line) => line.msg === STARTED[kind]);
    return proc;
  };

  return {
    /** The gateway on a free port, once GET /ready answers 200 (Postgres and Redis reachable). */
    startGateway: async (options: StartOptions & { name?: string; port?: number } = {}): Promise<{ url: string; process: AppProcess }> => {
      const port = options.port ?? (await freePort());
      const proc = launch(options.name ?? "gateway", "gateway", {
        ...commonEnv(options.logLevel ?? "warn"),
        HOST: "127.0.0.1",
        PORT: String(port),
        WEBHOOK_SECRET_KEY: webhookKey,
        ...options.env,
      });
      const url = `http://127.0.0.1:${port}`;
      const deadline = Date.now() + START_TIMEOUT_MS;
      for (;;) {
        if (proc.hasExited()) throw new Error(`gateway ended before it was ready:\n${proc.tail()}`);
        if (Date.now() > deadline) throw new Error(`gateway not ready within ${START_TIMEOUT_MS} ms:\n${proc.tail()}`);
        const ready = await fetch(`${url}/ready`).then((r) => r.ok, () => false);
        if (ready) return { url, process: proc };
        await new Promise((r) => setTimeout(r, 100));
      }
    },

    /** A worker of `kind` (see above). */
    startWorker,

    /** A tx-worker: startWorker("tx-worker", …). */
    startTxWorker: (name: string, options: StartOptions = {}) => startWorker("tx-worker", name, options),

    /** SIGTERM to every process still running (SIGKILL after a grace period); for afterAll. */
    stopAll: async (): Promise<void> => {
      await Promise.all(started.map((proc) => proc.stop()));
    },
  };
}

export type ProcessGroup = ReturnType<typeof createProcessGroup>;

/** A TCP port that was free a moment ago (the OS picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
