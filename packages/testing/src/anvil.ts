import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";

/**
 * Private key of anvil's dev account 0 (0xf39F…2266), derived from anvil's default, public test
 * mnemonic "test test test test test test test test test test test junk". Everyone knows it: it
 * is funded on every anvil node and must never hold anything on a real chain.
 */
export const ANVIL_FUNDED_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

export interface AnvilOptions {
  /** Default 31337, anvil's own. Give each chain of a multi-chain test its own id. */
  chainId?: number;
  /** Default: a free port chosen by the OS, read back from anvil's "Listening on" line. */
  port?: number;
  /** Mine a block every `blockTime` seconds instead of one per transaction. */
  blockTime?: number;
  /** Mine only on demand (`evm_mine`), e.g. to test stuck transactions. */
  noMining?: boolean;
  /** Number of funded dev accounts (anvil's default is 10). */
  accounts?: number;
  /**
   * EVM rules to run, e.g. "berlin" for a chain before EIP-1559 (its blocks have no base fee).
   * Default: anvil's latest. Contracts for an older hardfork must be compiled for it.
   */
  hardfork?: string;
  /** Further anvil flags, e.g. `--state <file>` to keep the chain across restarts. */
  extraArgs?: string[];
  /**
   * Called with the node's process as soon as it is spawned, before it is ready: for a caller
   * that must know every process it started even if it dies while anvil starts (the quick start's
   * orphan reaper).
   */
  onSpawn?: (child: ChildProcess) => void;
}

export interface AnvilInstance {
  rpcUrl: string;
  chainId: number;
  port: number;
  /** Ends the node and resolves once the process and its pipes are closed; safe to call twice. */
  stop(): Promise<void>;
  process: ChildProcess;
}

const START_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 5_000;
const OUTPUT_TAIL_CHARS = 4_096;

/** Node's arch names → the suffixes of @foundry-rs/anvil's platform packages. */
const PACKAGE_ARCH: Partial<Record<string, string>> = { x64: "amd64", arm64: "arm64" };

/**
 * Path of the anvil binary shipped by the platform package that @foundry-rs/anvil pulls in as an
 * optional dependency. Running it directly skips the package's node wrapper: one process fewer,
 * and a signal reaches anvil itself.
 */
export function anvilBinaryPath(): string {
  const platformPackage = `@foundry-rs/anvil-${process.platform}-${PACKAGE_ARCH[process.arch] ?? process.arch}`;
  const binary = process.platform === "win32" ? "anvil.exe" : "anvil";
  // The platform package is a dependency of @foundry-rs/anvil, not of ours: resolve from there.
  const fromAnvilPackage = createRequire(require.resolve("@foundry-rs/anvil/package.json"));
  try {
    return fromAnvilPackage.resolve(`${platformPackage}/bin/${binary}`);
  } catch (cause) {
    throw new Error(
      `no anvil binary for ${process.platform}/${process.arch}: ${platformPackage} is not installed`,
      { cause },
    );
  }
}

/** Starts an anvil node and resolves once it answers `eth_chainId` with the expected id. */
export async function startAnvil(options: AnvilOptions = {}): Promise<AnvilInstance> {
  if (options.noMining && options.blockTime !== undefined) {
    throw new Error("startAnvil: blockTime and noMining exclude each other");
  }
  const chainId = options.chainId ?? 31337;
  const args = ["--host", "127.0.0.1", "--port", String(options.port ?? 0), "--chain-id", String(chainId)];
  if (options.blockTime !== undefined) args.push("--block-time", String(options.blockTime));
  if (options.noMining) args.push("--no-mining");
  if (options.accounts !== undefined) args.push("--accounts", String(options.accounts));
  if (options.hardfork !== undefined) args.push("--hardfork", options.hardfork);
  if (options.extraArgs) args.push(...options.extraArgs);

  const node = launch(anvilBinaryPath(), args);
  options.onSpawn?.(node.child);
  try {
    const deadline = Date.now() + START_TIMEOUT_MS;
    const port = await node.listeningPort(deadline);
    const rpcUrl = `http://127.0.0.1:${port}`;
    await waitForChainId(rpcUrl, chainId, deadline, node);
    return { rpcUrl, chainId, port, stop: node.stop, process: node.child };
  } catch (error) {
    await node.stop();
    throw error;
  }
}

interface LaunchedNode {
  child: ChildProcess;
  listeningPort(deadline: number): Promise<number>;
  /** Rejects once the process has exited; for racing against start-up steps. */
  exited: Promise<never>;
  hasEnded(): boolean;
  stop(): Promise<void>;
}

function launch(binary: string, args: string[]): LaunchedNode {
  const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
  track(child);

  // Without --quiet anvil prints the port it bound, and logs every RPC call afterwards: keep
  // reading both pipes for the node's whole life (a full pipe would block it), keeping a short
  // tail for error messages.
  let tail = "";
  const portWaiters = new Set<(port: number) => void>();
  let port: number | undefined;
  const onOutput = (chunk: Buffer) => {
    tail = (tail + chunk.toString("utf8")).slice(-OUTPUT_TAIL_CHARS);
    if (port === undefined) {
      const match = /Listening on \S+:(\d+)/.exec(tail);
      if (match?.[1]) {
        port = Number(match[1]);
        for (const resolve of portWaiters) resolve(port);
      }
    }
  };
  child.stdout?.on("data", onOutput);
  child.stderr?.on("data", onOutput);

  let closed = false;
  let spawnError: Error | undefined;
  const closedPromise = new Promise<void>((resolve) => {
    const onClosed = () => {
      closed = true;
      untrack(child);
      resolve();
    };
    child.once("close", onClosed);
    // A binary that cannot be started emits "error" and may never emit "close".
    child.once("error", (error) => {
      spawnError = error;
      if (child.pid === undefined) onClosed();
    });
  });
  const exited = closedPromise.then((): never => {
    const how = spawnError ? `failed to start: ${spawnError.message}` : `ended (${child.exitCode ?? child.signalCode})`;
    throw new Error(`anvil (${args.join(" ")}) ${how} before it was ready:\n${tail}`, { cause: spawnError });
  });
  exited.catch(() => undefined); // only awaited while starting

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (closed) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
      await closedPromise;
      clearTimeout(timer);
    })();
    return stopping;
  };

  const listeningPort = (deadline: number) => {
    if (port !== undefined) return Promise.resolve(port);
    let timer: NodeJS.Timeout | undefined;
    let onPort: ((p: number) => void) | undefined;
    const found = new Promise<number>((resolve) => {
      onPort = resolve;
      portWaiters.add(resolve);
    });
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`anvil did not report a port within ${START_TIMEOUT_MS} ms:\n${tail}`)),
        Math.max(0, deadline - Date.now()),
      );
    });
    return Promise.race([found, exited, timedOut]).finally(() => {
      clearTimeout(timer);
      if (onPort) portWaiters.delete(onPort);
    });
  };

  return { child, listeningPort, exited, hasEnded: () => closed, stop };
}

async function waitForChainId(rpcUrl: string, chainId: number, deadline: number, node: LaunchedNode) {
  let lastError: unknown;
  while (Date.now() < deadline) {
    let answered: bigint;
    try {
      answered = await Promise.race([rpcChainId(rpcUrl), node.exited]);
    } catch (error) {
      if (node.hasEnded()) throw error;
      lastError = error; // not serving yet
      await new Promise((resolve) => setTimeout(resolve, 50));
      continue;
    }
    if (answered !== BigInt(chainId)) {
      throw new Error(`${rpcUrl} answered eth_chainId ${answered}, expected ${chainId}`);
    }
    return;
  }
  throw new Error(`anvil at ${rpcUrl} did not answer eth_chainId within ${START_TIMEOUT_MS} ms`, {
    cause: lastError,
  });
}

async function rpcChainId(rpcUrl: string): Promise<bigint> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
    signal: AbortSignal.timeout(2_000),
  });
  const body = (await response.json()) as { result?: unknown };
  if (typeof body.result !== "string") throw new Error(`eth_chainId: unexpected answer ${JSON.stringify(body)}`);
  return BigInt(body.result);
}

// A node must not outlive the test process, even when a test forgets stop() or the run is
// interrupted. The hooks are installed only while nodes run, so jest's per-file module registry
// does not pile up listeners on the shared process.
const live = new Set<ChildProcess>();
const HANDLED_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

const killAll = () => {
  for (const child of live) child.kill("SIGKILL");
};

const onSignal = (signal: NodeJS.Signals) => {
  // When the process handles the signal itself (the quick start does), it stops its nodes
  // gracefully, letting anvil save its state; the exit hook still catches any it forgets.
  // Otherwise stand in for the default action: kill the nodes and terminate.
  if (process.listenerCount(signal) === 1) {
    killAll();
    removeHooks();
    process.kill(process.pid, signal);
  }
};

function addHooks() {
  process.on("exit", killAll);
  for (const signal of HANDLED_SIGNALS) process.on(signal, onSignal);
}

function removeHooks() {
  process.removeListener("exit", killAll);
  for (const signal of HANDLED_SIGNALS) process.removeListener(signal, onSignal);
}

function track(child: ChildProcess) {
  if (live.size === 0) addHooks();
  live.add(child);
}

function untrack(child: ChildProcess) {
  if (live.delete(child) && live.size === 0) removeHooks();
}
