import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./app-processes";

/** Debian's pgbouncer 1.18 (scripts/lib/debian-packages.sh installs it for the tests). */
export const PGBOUNCER = process.env.RELAY_TEST_PGBOUNCER ?? "/usr/sbin/pgbouncer";

export interface PrivatePgBouncer {
  /** `url` with its host and port replaced by the pooler's. */
  through(url: string): string;
  port: number;
  stop(): Promise<void>;
}

export interface PgBouncerOptions {
  /** The Postgres server behind it, as any URL of it (its host, port and user are used). */
  serverUrl: string;
  /** Server connections per database and user (PgBouncer's default_pool_size). */
  poolSize?: number;
  /** SQL each new server connection runs first (PgBouncer's per-database connect_query). */
  connectQuery?: string;
}

/**
 * A PgBouncer of the caller's own, in transaction pooling mode, on a free loopback port, in front
 * of every database of `serverUrl`'s server (a `*` entry), with trust authentication like the
 * local test Postgres. Its files live in a temporary directory removed by `stop()`.
 */
export async function startPgBouncer(options: PgBouncerOptions): Promise<PrivatePgBouncer> {
  const server = new URL(options.serverUrl);
  const user = decodeURIComponent(server.username || "postgres");
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "relay-pgbouncer-"));
  // pgbouncer will not run as root; with -u it switches to that user, who must read the files.
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, "userlist.txt"), `"${user}" ""\n`);
  writeFileSync(
    join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `* = host=${server.hostname} port=${server.port || 5432}` +
        (options.connectQuery ? ` connect_query='${options.connectQuery.replace(/'/g, "''")}'` : ""),
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${join(dir, "userlist.txt")}`,
      "pool_mode = transaction",
      `default_pool_size = ${options.poolSize ?? 10}`,
      "max_client_conn = 500",
      "server_reset_query =",
      "log_connections = 0",
      "log_disconnections = 0",
      "",
    ].join("\n"),
  );
  const args = [...(process.getuid?.() === 0 ? ["-u", "nobody"] : []), join(dir, "pgbouncer.ini")];
  const child = spawn(PGBOUNCER, args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  const kill = () => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL");
  process.once("exit", kill);
  await waitForPort(port, child, () => stderr);
  return {
    port,
    through: (url) => {
      const u = new URL(url);
      u.hostname = "127.0.0.1";
      u.port = String(port);
      return u.toString();
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await exited;
      }
      process.removeListener("exit", kill);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitForPort(port: number, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null) throw new Error(`pgbouncer ended at start (exit ${child.exitCode}): ${stderr()}`);
    if (Date.now() > deadline) throw new Error(`pgbouncer on port ${port} did not listen within 10 s: ${stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
