import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import type { Kek } from "@relay/custody";

/**
 * The apps as production runs them: separate `node --import tsx apps/<app>/src/main.ts`
 * processes configured through the environment only, for tests that kill, restart or multiply
 * them. A group remembers what it started; `stopAll()` in afterAll ends every one of them.
 */

const ROOT = resolve(__dirname, "../../..");
const ENTRIES = {
  gateway: "apps/gateway/src/main.ts",
  "tx-worker": "apps/tx-worker/src/main.ts",
  "signing-worker": "apps/signing-worker/src/main.ts",
  "webhook-worker": "apps/webhook-worker/src/main.ts",
} as const;
const START_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 10_000;
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
  /** The KEK the test sealed its wallets with; given to tx-workers only. */
  kek: Kek;
  redisUrl?: string;
  /** Seals webhook secrets; the gateway and webhook-workers of a group share it (default: random per group). */
  webhookKey?: Buffer;
}

// Children must not outlive the test process, even when afterAll never runs (interrupted run).
const live = new Set<ChildProcess>();
const killLive = () => {
  for (const child of live) child.kill("SIGKILL");
};

export function createProcessGroup(settings: ProcessGroupSettings) {
  const started: AppProcess[] = [];
  const webhookKey = settings.webhookKey ?? randomBytes(32);
  const kekEnv = (): Record<string, string> => {
    const key = settings.kek.keys.get(settings.kek.activeKeyId);
    if (!key) throw new Error(`the KEK has no key ${settings.kek.activeKeyId}`);
    return { KEY_ENCRYPTION_KEY: key.toString("base64"), KEY_ENCRYPTION_KEY_ID: settings.kek.activeKeyId };
  };

  const commonEnv = (logLevel: string): Record<string, string> => {
    const env: Record<string, string> = {
      NODE_ENV: "test",
      DATABASE_URL: settings.databaseUrl,
      REDIS_URL: settings.redisUrl ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
      QUEUE_PREFIX: settings.queuePrefix,
      LOG_LEVEL: logLevel,
    };
    // Only what node and tsx need from the test's own environment, not the test's variables.
    for (const name of ["PATH", "HOME", "TMPDIR"]) {
      const value = process.env[name];
      if (value !== undefined) env[name] = value;
    }
    return env;
  };

  const launch = (name: string, app: keyof typeof ENTRIES, env: Record<string, string>): AppProcess => {
    const child = spawn(process.execPath, ["--import", "tsx", ENTRIES[app]], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
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

  return {
    /** The gateway on a free port, once GET /ready answers 200 (Postgres and Redis reachable). */
    startGateway: async (
      options: { logLevel?: string; env?: Record<string, string>; port?: number } = {},
    ): Promise<{ url: string; process: AppProcess }> => {
      const port = options.port ?? (await freePort());
      const proc = launch("gateway", "gateway", {
        ...commonEnv(options.logLevel ?? "warn"),
        HOST: "127.0.0.1",
        PORT: String(port),
        WEBHOOK_SECRET_KEY: webhookKey.toString("base64"),
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

    /**
     * A tx-worker, once it has logged "tx worker started" (its queues are connected). That line is
     * at info level, so the default level here is info; `env` adds or overrides variables
     * (TX_CONCURRENCY, TX_JOB_LOCK_MS, …).
     */
    startTxWorker: async (name: string, options: { logLevel?: string; env?: Record<string, string> } = {}): Promise<AppProcess> => {
      const proc = launch(name, "tx-worker", { ...commonEnv(options.logLevel ?? "info"), ...kekEnv(), ...options.env });
      await proc.waitForLog((line) => line.msg === "tx worker started");
      return proc;
    },

    /** A signing-worker, once it has logged "signing worker started"; it holds the group's KEK. */
    startSigningWorker: async (name: string, options: { logLevel?: string; env?: Record<string, string> } = {}): Promise<AppProcess> => {
      const proc = launch(name, "signing-worker", { ...commonEnv(options.logLevel ?? "info"), ...kekEnv(), ...options.env });
      await proc.waitForLog((line) => line.msg === "signing worker started");
      return proc;
    },

    /**
     * A webhook-worker, once it has logged "webhook worker started". It opens secrets with the
     * group's webhook key (the gateway's) and may call loopback receivers (WEBHOOK_ALLOW_PRIVATE).
     */
    startWebhookWorker: async (name: string, options: { logLevel?: string; env?: Record<string, string> } = {}): Promise<AppProcess> => {
      const proc = launch(name, "webhook-worker", {
        ...commonEnv(options.logLevel ?? "info"),
        WEBHOOK_SECRET_KEY: webhookKey.toString("base64"),
        WEBHOOK_ALLOW_PRIVATE: "true",
        ...options.env,
      });
      await proc.waitForLog((line) => line.msg === "webhook worker started");
      return proc;
    },

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
