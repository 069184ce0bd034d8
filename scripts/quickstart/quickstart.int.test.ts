/**
 * The README's first command, end to end: `npm start` in a fresh copy of the repository (what a
 * clone holds, plus uncommitted work: no node_modules, no .dev, no generated Prisma client), then
 * a personal_sign with the API key and wallet it prints, then Ctrl-C (SIGINT to the process group,
 * as a terminal sends it) must stop everything: gateway, worker and anvil.
 *
 * The quick start runs on its own database (created by the quick start itself: it must not
 * exist beforehand), its own free ports and its own Redis key prefix, so it runs beside other
 * tests and beside a developer's own `npm start`.
 */
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { createRequire } from "node:module";
import { connect, createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { verifyMessage } from "ethers";
import { withDatabase } from "@relay/db";
import { deleteRedisKeys, dropTestDatabase, testQueuePrefix, testServerUrl } from "@relay/testing";

const repoRoot = path.resolve(__dirname, "../..");

const BANNER_TIMEOUT_MS = 240_000;
const STOP_TIMEOUT_MS = 30_000;
const OUTPUT_LIMIT = 200_000;

// ioredis is a dependency of @relay/testing, not of the workspace root this file resolves from.
type RedisClient = Parameters<typeof deleteRedisKeys>[0];
const { Redis } = createRequire(require.resolve("@relay/testing"))("ioredis") as {
  Redis: new (url: string, options: object) => RedisClient;
};

/** Waits for a spawned `npm start` that must end by itself; its exit code and output. Killed (group) after `timeoutMs`. */
async function runToExit(child: ChildProcess, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  let output = "";
  child.stdout?.on("data", (c: Buffer) => (output += c.toString("utf8")));
  child.stderr?.on("data", (c: Buffer) => (output += c.toString("utf8")));
  const timer = setTimeout(() => process.kill(-(child.pid as number), "SIGKILL"), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
  clearTimeout(timer);
  return { code, output };
}

/** The repository as a clone sees it, plus untracked files that are not ignored. */
function copyRepository(to: string): number {
  const listed = execFileSync("git", ["ls-files", "-co", "--exclude-standard", "-z"], { cwd: repoRoot, encoding: "utf8" })
    .split("\0")
    .filter(Boolean);
  let copied = 0;
  for (const file of new Set(listed)) {
    const from = path.join(repoRoot, file);
    let stat;
    try {
      stat = lstatSync(from);
    } catch {
      continue; // tracked but deleted in the working tree: a clone of this work would not have it
    }
    if (stat.isDirectory()) continue; // a submodule's gitlink
    const target = path.join(to, file);
    mkdirSync(path.dirname(target), { recursive: true });
    if (stat.isSymbolicLink()) symlinkSync(readlinkSync(from), target);
    else copyFileSync(from, target); // keeps the mode (executable scripts stay executable)
    copied++;
  }
  return copied;
}

/** Ports that were free a moment ago: bound to port 0 together (so distinct), then released. */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer();
          server.once("error", reject);
          server.listen(0, "127.0.0.1", () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.setTimeout(2_000);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("timeout", () => {
      socket.destroy();
      resolve(true); // accepted by the kernel's backlog but nobody answers: still bound
    });
    socket.once("error", () => resolve(false));
  });
}

/** Whether any process of the group is still alive (signal 0 only checks). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    signal: AbortSignal.timeout(5_000),
  });
  return ((await response.json()) as { result?: unknown }).result;
}

describe("npm start (the quick start)", () => {
  const serverUrl = testServerUrl();
  // The naming of createTestDatabase (relay_test_<base-36 seconds>_<hex>): should the cleanup
  // below ever be skipped, a later run's dropStaleTestDatabases removes the leftover.
  const databaseName = `relay_test_${Math.floor(Date.now() / 1000).toString(36)}_${randomBytes(5).toString("hex")}`;
  const queuePrefix = testQueuePrefix("quickstart");
  let dir: string | undefined;
  let child: ChildProcess | undefined;
  let output = "";
  let passed = false;
  let reported = false;

  /** What a CI log needs when this fails: the quick start's own output and the apps' logs. */
  const diagnostics = () => {
    const parts = [`--- npm start output (${dir ?? "no copy"}) ---\n${output || "(none)"}`];
    const logDir = dir && path.join(dir, ".dev", "logs");
    if (logDir && existsSync(logDir)) {
      for (const name of readdirSync(logDir)) {
        parts.push(`--- .dev/logs/${name} (last 8 kB) ---\n${readFileSync(path.join(logDir, name), "utf8").slice(-8_192)}`);
      }
    }
    return parts.join("\n");
  };

  afterAll(async () => {
    if (!passed && !reported) process.stderr.write(`${diagnostics()}\n`);
    const failures: unknown[] = [];
    const step = async (fn: () => unknown) => {
      try {
        await fn();
      } catch (e) {
        failures.push(e);
      }
    };
    await step(async () => {
      const pgid = child?.pid;
      if (pgid === undefined || !groupAlive(pgid)) return;
      process.kill(-pgid, "SIGKILL");
      if (!(await until(() => !groupAlive(pgid), 10_000))) throw new Error(`process group ${pgid} survived SIGKILL`);
    });
    await step(() => dropTestDatabase(serverUrl, databaseName));
    await step(async () => {
      const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await deleteRedisKeys(redis, queuePrefix);
      } finally {
        redis.disconnect();
      }
    });
    await step(() => dir && rmSync(dir, { recursive: true, force: true }));
    if (failures.length > 0) throw new AggregateError(failures, "quick start test cleanup failed");
  });

  it(
    "runs the README's first command from a fresh clone and signs a message with the printed key",
    async () => {
      try {
        dir = mkdtempSync(path.join(tmpdir(), "relay-quickstart-"));
        expect(copyRepository(dir)).toBeGreaterThan(0);
        expect(existsSync(path.join(dir, "node_modules"))).toBe(false);
        expect(existsSync(path.join(dir, ".dev"))).toBe(false);
        expect(existsSync(path.join(dir, "packages/db/src/generated"))).toBe(false);

        const [port, anvilPort] = (await freePorts(2)) as [number, number];
        const env: NodeJS.ProcessEnv = {
          ...process.env,
          HOST: "127.0.0.1",
          PORT: String(port),
          ANVIL_PORT: String(anvilPort),
          DATABASE_URL: withDatabase(serverUrl, databaseName),
          QUEUE_PREFIX: queuePrefix,
        };
        // What a developer's shell would not have: the key (the quick start must make one), another
        // chain, and what jest and its global setup add.
        for (const name of Object.keys(env)) {
          if (/^(KEY_ENCRYPTION_KEY|WEBHOOK_SECRET_KEY|RELAY_TEST_|JEST_)/.test(name) || name === "RPC_URL") delete env[name];
        }
        if (env.NODE_ENV === "test") delete env.NODE_ENV; // jest's default

        const started = Date.now();
        const npm = spawn("npm", ["start"], { cwd: dir, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
        child = npm;
        const onOutput = (chunk: Buffer) => {
          output = (output + chunk.toString("utf8")).slice(-OUTPUT_LIMIT);
        };
        npm.stdout?.on("data", onOutput);
        npm.stderr?.on("data", onOutput);
        let exitedWith: string | number | undefined;
        npm.once("exit", (code, signal) => (exitedWith = signal ?? code ?? "?"));

        // The banner is printed at once, ending with the Ctrl-C hint.
        const bannerDone = () => /^Ctrl-C stops everything\.$/m.test(output) || exitedWith !== undefined;
        if (!(await until(bannerDone, BANNER_TIMEOUT_MS))) {
          throw new Error(`no banner within ${BANNER_TIMEOUT_MS / 1000} s`);
        }
        if (exitedWith !== undefined) throw new Error(`npm start ended (${String(exitedWith)}) before printing the banner`);
        const startSeconds = (Date.now() - started) / 1000;

        const projectId = /^ {2}Project id:\s+([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/m.exec(output)?.[1];
        const wallet = /^ {2}Wallet:\s+(0x[0-9a-fA-F]{40}) \(/m.exec(output)?.[1];
        const apiKey = /^ {2}API key:\s+(rk_\S+)$/m.exec(output)?.[1];
        expect({ projectId, wallet, apiKey }).toEqual({
          projectId: expect.any(String),
          wallet: expect.any(String),
          apiKey: expect.any(String),
        });
        expect(output).toContain(`http://127.0.0.1:${port}`);
        expect(output).toMatch(/^Database ready \([1-9]\d* migration\(s\) applied now\)$/m); // created it, from empty

        // The development key-encryption key: generated into .dev/kek, and git-ignored.
        expect(output).toContain("Generated a development key-encryption key into .dev/kek (git-ignored)");
        const kekFile = path.join(dir, ".dev", "kek");
        expect(Buffer.from(readFileSync(kekFile, "utf8").trim(), "base64")).toHaveLength(32);
        expect(statSync(kekFile).mode & 0o077).toBe(0);
        const ignoreLines = readFileSync(path.join(dir, ".gitignore"), "utf8")
          .split("\n")
          .map((line) => line.trim());
        expect(ignoreLines.some((line) => [".dev", ".dev/", "/.dev", "/.dev/"].includes(line))).toBe(true);
        expect(ignoreLines.filter((line) => /^!\/?\.dev\b/.test(line))).toEqual([]);

        // The wallet is funded on the local chain the quick start runs.
        const balance = await rpc(`http://127.0.0.1:${anvilPort}`, "eth_getBalance", [wallet, "latest"]);
        expect(BigInt(balance as string)).toBeGreaterThan(0n);

        // The curl the banner suggests, with the printed key.
        const message = `hello from the quick start test ${randomBytes(4).toString("hex")}`;
        const response = await fetch(`http://127.0.0.1:${port}/wallet/project/${projectId}/personalSign`, {
          method: "POST",
          headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({ signerAddress: wallet, message }),
          signal: AbortSignal.timeout(15_000),
        });
        const body = (await response.json()) as { signature?: string; message?: string };
        expect({ status: response.status, body }).toMatchObject({ status: 200, body: { message } });
        expect(verifyMessage(message, body.signature as string)).toBe(wallet);

        // The contract call the banner suggests (a contract deployed for the demo), then its status.
        const callBody = /^ {4}-d '(\{"projectId".*"contractAddress".*\})'$/m.exec(output)?.[1];
        expect(callBody).toBeDefined();
        const sent = await fetch(`http://127.0.0.1:${port}/transact/sendTransaction`, {
          method: "POST",
          headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
          body: callBody,
          signal: AbortSignal.timeout(15_000),
        });
        const { transactionId } = (await sent.json()) as { transactionId: string };
        expect(sent.status).toBe(200);
        let status: string | undefined;
        await until(async () => {
          const read = await fetch(`http://127.0.0.1:${port}/transact/project/${projectId}/transactions/${transactionId}`, { headers: { authorization: `Bearer ${apiKey}` } });
          status = ((await read.json()) as { status?: string }).status;
          return status === "CONFIRMED" || status === "REVERTED" || status === "INVALID" || status === "FAILED";
        }, 30_000);
        expect(status).toBe("CONFIRMED");

        // Ctrl-C: the terminal signals the whole foreground process group.
        const stopping = Date.now();
        process.kill(-(npm.pid as number), "SIGINT");
        const stopped = await until(() => !groupAlive(npm.pid as number), STOP_TIMEOUT_MS);
        expect({ stopped, within: STOP_TIMEOUT_MS / 1000 }).toEqual({ stopped: true, within: STOP_TIMEOUT_MS / 1000 });
        expect(output).toContain("Stopping…");
        expect(await listening(anvilPort)).toBe(false);
        expect(await listening(port)).toBe(false);

        // Started again while its gateway's port is taken (another `npm start`): it says which
        // setting to change, before starting or writing anything.
        const squatter = createServer();
        await new Promise<void>((r) => squatter.listen(port, "127.0.0.1", () => r()));
        try {
          const again = await runToExit(spawn("npm", ["start"], { cwd: dir, env, detached: true, stdio: ["ignore", "pipe", "pipe"] }), 60_000);
          expect(again.code).toBe(1);
          expect(again.output).toContain(`start failed: port ${port} on 127.0.0.1 (the gateway) is in use, by another \`npm start\` perhaps: stop it, or start with PORT=<another port>`);
          expect(again.output).not.toContain("Relay is running");
        } finally {
          await new Promise((r) => squatter.close(r));
        }
        expect(await listening(anvilPort)).toBe(false);

        // Started with another key-encryption key than the one that sealed the demo wallet (another
        // clone's quick start on the same database): it says so instead of a banner over a 500.
        rmSync(path.join(dir, ".dev", "kek"));
        const otherKey = await runToExit(spawn("npm", ["start"], { cwd: dir, env, detached: true, stdio: ["ignore", "pipe", "pipe"] }), 120_000);
        expect(otherKey.code).toBe(1);
        expect(otherKey.output).toMatch(/start failed: the demo wallet 0x[0-9a-fA-F]{40} in the database was sealed with another key-encryption key than \.dev\/kek/);
        expect(await listening(anvilPort)).toBe(false);

        process.stdout.write(
          `quick start: banner after ${startSeconds.toFixed(1)} s, stopped in ${((Date.now() - stopping) / 1000).toFixed(1)} s\n`,
        );
        passed = true;
      } catch (e) {
        reported = true;
        if (e instanceof Error) e.message += `\n\n${diagnostics()}`;
        throw e;
      }
    },
    BANNER_TIMEOUT_MS + STOP_TIMEOUT_MS + 60_000,
  );
});
