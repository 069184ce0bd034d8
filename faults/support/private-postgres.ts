import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";

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

/** RELAY_FAULTS_PG_BIN, else PATH, else Debian's /usr/lib/postgresql/<newest>/bin. */
function bin(name: string): string {
  if (process.env.RELAY_FAULTS_PG_BIN) return join(process.env.RELAY_FAULTS_PG_BIN, name);
  const onPath = (process.env.PATH ?? "").split(delimiter).some((dir) => dir && existsSync(join(dir, name)));
  if (onPath) return name;
  const debian = "/usr/lib/postgresql";
  const versions = existsSync(debian) ? readdirSync(debian).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((v) => join(debian, v, "bin", name)).find((path) => existsSync(path));
  if (!found) throw new Error(`${name} not found: install PostgreSQL's server binaries or set RELAY_FAULTS_PG_BIN`);
  return found;
}

const commandFor = (name: string, args: string[]): [string, string[]] =>
  process.getuid?.() === 0 ? ["runuser", ["-u", "postgres", "--", bin(name), ...args]] : [bin(name), args];

/** Synchronous: only for the global setup and teardown, where nothing else runs. */
function run(name: string, args: string[]): string {
  const [command, argv] = commandFor(name, args);
  return execFileSync(command, argv, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** Without blocking the event loop: for scenarios, whose load keeps running meanwhile. */
async function runAsync(name: string, args: string[]): Promise<string> {
  const [command, argv] = commandFor(name, args);
  return (await promisify(execFile)(command, argv, { encoding: "utf8" })).stdout;
}

function ownedByPostgres(dir: string): void {
  if (process.getuid?.() !== 0) return;
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  chownSync(dir, uid, gid);
}

const PREFIX = "relay-faults-pg-";
const OWNER_FILE = "owner.pid";

export function createPrivatePostgres(port: number): PrivatePostgres {
  removeAbandonedClusters();
  const root = mkdtempSync(join(tmpdir(), PREFIX));
  writeFileSync(join(root, OWNER_FILE), String(process.pid));
  ownedByPostgres(root);
  const dataDir = join(root, "data");
  run("initdb", ["-D", dataDir, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
  const pg: PrivatePostgres = { url: `postgresql://postgres@127.0.0.1:${port}/postgres`, dataDir, port };
  run("pg_ctl", startArgs(pg));
  return pg;
}

/** Clusters of earlier runs whose jest process is gone (killed before its teardown): stopped and removed. */
function removeAbandonedClusters(): void {
  for (const name of readdirSync(tmpdir()).filter((n) => n.startsWith(PREFIX))) {
    const root = join(tmpdir(), name);
    const ownerFile = join(root, OWNER_FILE);
    if (!existsSync(ownerFile)) continue; // being created right now, or not ours to judge
    if (isAlive(Number(readFileSync(ownerFile, "utf8")))) continue;
    destroyPrivatePostgres({ dataDir: join(root, "data") });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Starts the cluster and waits until it accepts connections. */
export async function startPostgres(pg: Pick<PrivatePostgres, "dataDir" | "port">): Promise<void> {
  await runAsync("pg_ctl", startArgs(pg));
}

function startArgs(pg: Pick<PrivatePostgres, "dataDir" | "port">): string[] {
  const options = [
    `-p ${pg.port}`,
    `-k ${join(pg.dataDir, "..")}`,
    "-c listen_addresses=127.0.0.1",
    // Test data: speed over durability (a stop is a clean or immediate shutdown, never a power cut).
    "-c fsync=off",
    "-c max_connections=300",
  ].join(" ");
  return ["-D", pg.dataDir, "-l", join(pg.dataDir, "..", "postgres.log"), "-o", options, "-w", "-t", "60", "start"];
}

/** `immediate`: every backend killed at once, recovery on the next start (a crash, for the apps). */
export async function stopPostgres(pg: Pick<PrivatePostgres, "dataDir">, mode: "fast" | "immediate" = "immediate"): Promise<void> {
  await runAsync("pg_ctl", ["-D", pg.dataDir, "-m", mode, "-w", "-t", "60", "stop"]);
}

/** The cluster the global setup created, for the scenario that restarts it. */
export function runPostgres(): Pick<PrivatePostgres, "dataDir" | "port"> {
  const dataDir = process.env.RELAY_FAULTS_PG_DIR;
  const port = Number(process.env.RELAY_FAULTS_PG_PORT);
  if (!dataDir || !port) throw new Error("RELAY_FAULTS_PG_DIR is not set: run the fault suite with jest.faults.config.js");
  return { dataDir, port };
}

export function destroyPrivatePostgres(pg: Pick<PrivatePostgres, "dataDir">): void {
  try {
    run("pg_ctl", ["-D", pg.dataDir, "-m", "fast", "-w", "-t", "60", "stop"]);
  } catch {
    // already stopped
  }
  rmSync(join(pg.dataDir, ".."), { recursive: true, force: true });
}

/**
 * SIGSTOP (freeze) or SIGCONT (thaw) the cluster's postmaster and every backend: a Postgres that
 * still accepts TCP connections (the kernel's backlog) but answers nothing, like a stalled host.
 */
export async function signalPostgres(pg: Pick<PrivatePostgres, "dataDir">, signal: "SIGSTOP" | "SIGCONT"): Promise<void> {
  const postmaster = Number(readFileSync(join(pg.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  const children = await promisify(execFile)("pgrep", ["-P", String(postmaster)]).then(
    (r) => r.stdout.split("\n").filter(Boolean).map(Number),
    () => [] as number[],
  );
  // Children first when freezing (the postmaster cannot start new ones meanwhile), last when thawing.
  const order = signal === "SIGSTOP" ? [...children, postmaster] : [postmaster, ...children];
  for (const pid of order) {
    try {
      process.kill(pid, signal);
    } catch {
      // a backend that ended meanwhile
    }
  }
}
