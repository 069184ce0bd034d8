import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "./app-processes";

const run = promisify(execFile);
const REDIS_SERVER = process.env.RELAY_FAULTS_REDIS_SERVER ?? "redis-server";
const REDIS_CLI = process.env.RELAY_REDIS_CLI ?? "redis-cli";
const NODES = 6; // three masters, each with one replica
const READY_TIMEOUT_MS = 20_000;

/**
 * A Redis Cluster of one test file's own, made of the machine's `redis-server`: three masters and
 * three replicas on loopback ports, no persistence, each node in a temporary directory of its own.
 */
export interface TestRedisCluster {
  /** Value for REDIS_CLUSTER_NODES ("127.0.0.1:p1,…"). */
  nodes: string;
  /** The same seeds as the configuration reads them. */
  seeds: readonly { host: string; port: number }[];
  /** Ports of the nodes that are masters now (a failover changes them). */
  masterPorts(): Promise<number[]>;
  /** Port of the master that holds `key`'s slot now (as Redis itself hashes the key). */
  masterOfKey(key: string): Promise<number>;
  /** SIGKILL the node on `port` (a master lost without warning). */
  kill(port: number): Promise<void>;
  /** Resolves once every live node reports cluster_state:ok and the three masters are live nodes. */
  waitHealthy(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `nodeTimeoutMs` is the cluster's `cluster-node-timeout`: how long a master may stay silent
 * before its replica is promoted (small here, so a failover test takes seconds).
 */
export async function startRedisCluster(options: { nodeTimeoutMs?: number } = {}): Promise<TestRedisCluster> {
  const dir = await mkdtemp(join(tmpdir(), "relay-redis-cluster-"));
  const children = new Map<number, ChildProcess>();
  const stop = async () => {
    await Promise.all([...children.keys()].map((port) => killNode(children, port)));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const ports = await clusterPorts(NODES);
    for (const port of ports) children.set(port, await launchNode(dir, port, options.nodeTimeoutMs ?? 2000));
    await run(REDIS_CLI, ["--cluster", "create", ...ports.map((p) => `127.0.0.1:${p}`), "--cluster-replicas", "1", "--cluster-yes"], {
      timeout: READY_TIMEOUT_MS,
    });
    const cluster: TestRedisCluster = {
      nodes: ports.map((p) => `127.0.0.1:${p}`).join(","),
      seeds: ports.map((port) => ({ host: "127.0.0.1", port })),
      masterPorts: async () => mastersSeenBy(liveOf(children)),
      masterOfKey: (key) => masterOfKey(liveOf(children), key),
      kill: (port) => killNode(children, port),
      waitHealthy: (timeoutMs = READY_TIMEOUT_MS) => waitHealthy(liveOf(children), timeoutMs),
      stop,
    };
    await cluster.waitHealthy();
    return cluster;
  } catch (e) {
    await stop();
    throw e;
  }
}

const liveOf = (children: Map<number, ChildProcess>) =>
  [...children].filter(([, child]) => child.exitCode === null && child.signalCode === null).map(([port]) => port);

async function launchNode(root: string, port: number, nodeTimeoutMs: number): Promise<ChildProcess> {
  // A directory each: a replica's sync writes its RDB file under the same name on every node.
  const dir = join(root, String(port));
  await mkdir(dir);
  const args = [
    ["--port", String(port)],
    ["--bind", "127.0.0.1"],
    ["--dir", dir],
    ["--cluster-enabled", "yes"],
    ["--cluster-config-file", `nodes-${port}.conf`],
    ["--cluster-node-timeout", String(nodeTimeoutMs)],
    // A replica takes over however long ago it last heard from its master (the default refuses
    // one whose data it deems stale, which would leave the lost master's slots down for good).
    ["--cluster-replica-validity-factor", "0"],
    ["--save", ""],
    ["--appendonly", "no"],
  ].flat();
  const child = spawn(REDIS_SERVER, args, { stdio: "ignore" });
  process.once("exit", () => child.kill("SIGKILL"));
  const deadline = Date.now() + 10_000;
  while (!(await cli(port, "PING").then((r) => r === "PONG", () => false))) {
    if (child.exitCode !== null) throw new Error(`redis-server on port ${port} ended at start (exit ${child.exitCode})`);
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer within 10 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return child;
}

async function killNode(children: Map<number, ChildProcess>, port: number): Promise<void> {
  const child = children.get(port);
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await exited;
}

async function waitHealthy(ports: number[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const states = await Promise.all(ports.map((p) => cli(p, "CLUSTER", "INFO").catch(() => "")));
    const ok = states.every((s) => /cluster_state:ok/.test(s) && /cluster_slots_ok:16384/.test(s));
    // A lost master counts as healthy to its peers until they notice (cluster-node-timeout): wait
    // until the masters they name are three live nodes, so a promotion has happened.
    const masters = await mastersSeenBy(ports);
    if (ok && masters.length === 3 && masters.every((p) => ports.includes(p))) return;
    if (Date.now() > deadline) throw new Error(`Redis Cluster on ports ${ports.join(",")} not healthy within ${timeoutMs} ms:\n${states.join("\n")}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Masters that own slots and are not marked failed, as the first node that answers sees them. */
async function mastersSeenBy(ports: number[]): Promise<number[]> {
  for (const port of ports) {
    const table = await cli(port, "CLUSTER", "NODES").catch(() => undefined);
    if (table === undefined) continue;
    return table
      .split("\n")
      .map((line) => line.split(" "))
      .filter((f) => f.length > 8 && f[2]!.includes("master") && !f[2]!.includes("fail"))
      .map((f) => Number(/:(\d+)@/.exec(f[1]!)?.[1]));
  }
  return [];
}

async function masterOfKey(ports: number[], key: string): Promise<number> {
  const port = ports[0];
  if (port === undefined) throw new Error("no Redis Cluster node is running");
  const slot = Number(await cli(port, "CLUSTER", "KEYSLOT", key));
  for (const line of (await cli(port, "CLUSTER", "NODES")).split("\n")) {
    const fields = line.split(" ");
    if (!fields[2]?.includes("master") || fields[2].includes("fail")) continue;
    const owns = fields.slice(8).some((range) => {
      const [from, to] = range.split("-").map(Number);
      return from !== undefined && slot >= from && slot <= (to ?? from);
    });
    if (owns) return Number(/:(\d+)@/.exec(fields[1]!)?.[1]);
  }
  throw new Error(`no live master owns slot ${slot}`);
}

async function cli(port: number, ...command: string[]): Promise<string> {
  const { stdout } = await run(REDIS_CLI, ["-p", String(port), ...command], { timeout: 5000 });
  return stdout.trim();
}

/** Ports p with p + 10000 (the cluster bus) free too, as the OS hands them out. */
async function clusterPorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) {
    const port = await freePort();
    if (port + 10_000 <= 65_535 && !ports.includes(port) && (await isFree(port + 10_000))) ports.push(port);
  }
  return ports;
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}
