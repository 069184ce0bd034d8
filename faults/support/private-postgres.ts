import { execFileSync } from "node:child_process";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A Postgres cluster of the fault suite's own, so a scenario may stop and restart it under load:
 * the machine's shared server must never be restarted. `initdb` and `pg_ctl` come from PATH (or
 * RELAY_FAULTS_PG_BIN); as root they run as the `postgres` user, since Postgres refuses root.
 * Every operation goes through `pg_ctl -D <dir>`, so any process that knows the directory (the
 * jest global setup that created it, a test file that restarts it) can control it.
 */
export interface PrivatePostgres {
  /** Maintenance-database URL (`postgres`), trust auth. */
  url: string;
  dataDir: string;
  port: number;
}

const bin = (name: string) => (process.env.RELAY_FAULTS_PG_BIN ? join(process.env.RELAY_FAULTS_PG_BIN, name) : name);

function run(name: string, args: string[]): string {
  const asRoot = process.getuid?.() === 0;
  const [command, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", bin(name), ...args]] : [bin(name), args];
  return execFileSync(command, argv, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

function ownedByPostgres(dir: string): void {
  if (process.getuid?.() !== 0) return;
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  chownSync(dir, uid, gid);
}

export function createPrivatePostgres(port: number): PrivatePostgres {
  const root = mkdtempSync(join(tmpdir(), "relay-faults-pg-"));
  ownedByPostgres(root);
  const dataDir = join(root, "data");
  run("initdb", ["-D", dataDir, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
  const pg: PrivatePostgres = { url: `postgresql://postgres@127.0.0.1:${port}/postgres`, dataDir, port };
  startPostgres(pg);
  return pg;
}

/** Starts the cluster and waits until it accepts connections. */
export function startPostgres(pg: Pick<PrivatePostgres, "dataDir" | "port">): void {
  const options = [
    `-p ${pg.port}`,
    `-k ${join(pg.dataDir, "..")}`,
    "-c listen_addresses=127.0.0.1",
    // Test data: speed over durability (a stop is a clean or immediate shutdown, never a power cut).
    "-c fsync=off",
    "-c max_connections=300",
  ].join(" ");
  run("pg_ctl", ["-D", pg.dataDir, "-l", join(pg.dataDir, "..", "postgres.log"), "-o", options, "-w", "-t", "60", "start"]);
}

/** `immediate`: every backend killed at once, recovery on the next start (a crash, for the apps). */
export function stopPostgres(pg: Pick<PrivatePostgres, "dataDir">, mode: "fast" | "immediate" = "immediate"): void {
  run("pg_ctl", ["-D", pg.dataDir, "-m", mode, "-w", "-t", "60", "stop"]);
}

export function destroyPrivatePostgres(pg: Pick<PrivatePostgres, "dataDir">): void {
  try {
    stopPostgres(pg, "fast");
  } catch {
    // already stopped
  }
  rmSync(join(pg.dataDir, ".."), { recursive: true, force: true });
}
