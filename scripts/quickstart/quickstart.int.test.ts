/**
 * The README's first command, end to end: `npm start` in a fresh copy of the repository (what a
 * clone holds, plus uncommitted work: no node_modules, no .dev, no generated Prisma client), then
 * a personal_sign with the API key and wallet it prints, every example of its reference
 * (/openapi.json, run-reference-examples.ts), then Ctrl-C (SIGINT to the process group,
 * as a terminal sends it) must stop everything: gateway, worker and anvil. Then the ways a
 * supervisor, `timeout`, an IDE or CI stop it, by the pid of `npm start` alone (SIGTERM, SIGINT,
 * SIGHUP), and the quick start's own process killed outright: nothing it started may outlive it.
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
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { connect, createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { verifyMessage } from "ethers";
import { parseApiKey } from "@relay/core";
import { createPool, withDatabase } from "@relay/db";
import { deleteRedisKeys, dropTestDatabase, testQueuePrefix, testServerUrl } from "@relay/testing";
import { appRoleName } from "./app-role";
import { formatOutcomes, runReferenceExamples, type OpenApiDocument } from "./run-reference-examples";

const repoRoot = path.resolve(__dirname, "../..");

const BANNER_TIMEOUT_MS = 240_000;
const STOP_TIMEOUT_MS = 30_000;
/** The apps' shutdown bound (SHUTDOWN_GRACE_MS 20 s + 10 s to close) and anvil's, with a margin. */
const STOP_BOUND_MS = 45_000;
/** A start once installed, migrated and seeded: the install check, generate, anvil, the apps. */
const RESTART_TIMEOUT_MS = 120_000;
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

interface ProcessInfo {
  pid: number;
  command: string;
}

/** /proc/<pid>/stat's fields after "pid (comm) ": state, ppid, pgrp, … (comm may hold anything). */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** Whether `pid` runs: a process that ended but is not yet reaped (a zombie) does not. */
function running(pid: number): boolean {
  const state = statFields(pid)?.[0];
  return state !== undefined && state !== "Z";
}

/** The running processes of a process group, with their command lines (Linux's /proc). */
function groupProcesses(pgid: number): ProcessInfo[] {
  const found: ProcessInfo[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const fields = statFields(pid);
    if (!fields || fields[0] === "Z" || Number(fields[2]) !== pgid) continue;
    let command = "";
    try {
      command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
    } catch {
      continue; // ended meanwhile
    }
    found.push({ pid, command });
  }
  return found;
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

/** SIGKILL to every process of the group, and waits for them to be gone. */
async function killGroup(pgid: number): Promise<void> {
  if (!groupAlive(pgid)) return;
  process.kill(-pgid, "SIGKILL");
  if (!(await until(() => !groupAlive(pgid), 10_000))) throw new Error(`process group ${pgid} survived SIGKILL`);
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
  let env: NodeJS.ProcessEnv | undefined;
  let port = 0;
  let anvilPort = 0;
  /** Every `npm start` spawned, by its process group (they run detached), for the clean-up. */
  const groups: number[] = [];
  let output = "";
  /** A test that has not ended by itself (jest's time-out) has not shown its diagnostics. */
  let unreported = false;

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

  /** Runs a test's body, adding the diagnostics to its failure. */
  const reporting = async (body: () => Promise<void>) => {
    unreported = true;
    try {
      await body();
    } catch (e) {
      if (e instanceof Error) e.message += `\n\n${diagnostics()}`;
      throw e;
    } finally {
      unreported = false;
    }
  };

  /** `npm start` in the copy, resolved once the banner is printed (rejects if it ends before). */
  const startQuickstart = async (timeoutMs: number): Promise<ChildProcess> => {
    output = "";
    const npm = spawn("npm", ["start"], { cwd: dir, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    groups.push(npm.pid as number);
    const onOutput = (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-OUTPUT_LIMIT);
    };
    npm.stdout?.on("data", onOutput);
    npm.stderr?.on("data", onOutput);
    let exitedWith: string | number | undefined;
    npm.once("exit", (code, signal) => (exitedWith = signal ?? code ?? "?"));

    // The banner is printed at once, ending with the Ctrl-C hint.
    const bannerDone = () => /^Ctrl-C stops everything\.$/m.test(output) || exitedWith !== undefined;
    if (!(await until(bannerDone, timeoutMs))) throw new Error(`no banner within ${timeoutMs / 1000} s`);
    if (exitedWith !== undefined) throw new Error(`npm start ended (${String(exitedWith)}) before printing the banner`);
    return npm;
  };

  afterAll(async () => {
    if (unreported) process.stderr.write(`${diagnostics()}\n`);
    const failures: unknown[] = [];
    const step = async (fn: () => unknown) => {
      try {
        await fn();
      } catch (e) {
        failures.push(e);
      }
    };
    for (const pgid of groups) await step(() => killGroup(pgid));
    await step(() => dropTestDatabase(serverUrl, databaseName));
    // The apps' login role the quick start made for its database (scripts/quickstart/app-role.ts).
    await step(async () => {
      const pool = createPool({ url: withDatabase(serverUrl, "postgres"), poolSize: 1 });
      try {
        await pool.query(`DROP ROLE IF EXISTS "${appRoleName(databaseName)}"`);
      } finally {
        await pool.end();
      }
    });
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
    () =>
      reporting(async () => {
        dir = mkdtempSync(path.join(tmpdir(), "relay-quickstart-"));
        expect(copyRepository(dir)).toBeGreaterThan(0);
        expect(existsSync(path.join(dir, "node_modules"))).toBe(false);
        expect(existsSync(path.join(dir, ".dev"))).toBe(false);
        expect(existsSync(path.join(dir, "packages/db/src/generated"))).toBe(false);

        [port, anvilPort] = (await freePorts(2)) as [number, number];
        env = {
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
        const npm = await startQuickstart(BANNER_TIMEOUT_MS);
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

        // The console's address, and the console there (built by the quick start's `pnpm build`).
        const consoleUrl = /^ {2}Console:\s+(http:\S+)/m.exec(output)?.[1];
        expect(consoleUrl).toBe(`http://127.0.0.1:${port}/console`);
        const consolePage = await fetch(consoleUrl as string, { signal: AbortSignal.timeout(15_000) });
        expect({ status: consolePage.status, html: await consolePage.text() }).toEqual({ status: 200, html: expect.stringContaining("/console/assets/console.js") });

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

        // The apps ran as a member of relay_app (docs/audit.md): none warned that it could rewrite
        // the audit log, and the signature and the transaction are in it, by the printed key.
        expect(output).toContain(`The apps connect as ${appRoleName(databaseName)}, a member of relay_app`);
        for (const app of ["gateway", "signing-worker", "tx-worker", "webhook-worker"]) {
          expect({ app, log: readFileSync(path.join(dir, ".dev", "logs", `${app}.log`), "utf8") }).not.toEqual({ app, log: expect.stringContaining("may UPDATE or DELETE audit_log") });
        }
        const owner = createPool({ url: withDatabase(serverUrl, databaseName), poolSize: 1 });
        try {
          const { rows } = await owner.query<{ action: string; actor_id: string }>(
            `SELECT action, actor_id FROM audit_log WHERE project_id = $1 AND action IN ('signature.message', 'transaction.signed') ORDER BY id`,
            [projectId],
          );
          expect(rows.map((r) => r.action)).toEqual(expect.arrayContaining(["signature.message", "transaction.signed"]));
          expect(new Set(rows.map((r) => r.actor_id))).toEqual(new Set([parseApiKey(apiKey as string)?.id]));
        } finally {
          await owner.end();
        }

        // The reference names this demo's records, and every example in it answers as documented:
        // each request 2xx (speedUp its documented 409, redeliver its documented 404: the demo's
        // registrations have no delivery), each error example its status and message.
        expect(output).toMatch(/^ {2}Reference:\s+its examples name this demo's records/m);
        const baseUrl = `http://127.0.0.1:${port}`;
        const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as OpenApiDocument & { paths: Record<string, { post?: { requestBody?: unknown } }> };
        expect(JSON.stringify(document.paths["/transact/sendTransaction"]?.post?.requestBody)).toContain(`"projectId":"${projectId}"`);
        const outcomes = await runReferenceExamples({ baseUrl, apiKey: apiKey as string, document });
        process.stdout.write(`${formatOutcomes(outcomes)}\n`);
        expect(outcomes.filter((o) => !o.ok)).toEqual([]);
        const answered = (example: string) => new Set(outcomes.filter((o) => o.example === example).map((o) => o.status));
        expect(answered("badRequest")).toEqual(new Set([400]));
        expect(answered("noApiKey")).toEqual(new Set([401]));
        expect(answered("otherProject")).toEqual(new Set([403]));
        expect(answered("notFound")).toEqual(new Set([404]));
        expect(outcomes.filter((o) => o.example === "example" && (o.status < 200 || o.status > 299)).map((o) => `${o.method} ${o.path} ${o.status}`)).toEqual([
          "post /transact/project/{projectId}/transactions/{transactionId}/speedUp 409",
          "post /webhook/project/{projectId}/eventCallback/{eventCallbackId}/delivery/{deliveryId}/redeliver 404",
        ]);
        expect(outcomes.filter((o) => o.example === "example").length).toBeGreaterThan(25);

        // Ctrl-C: the terminal signals the whole foreground process group.
        const stopping = Date.now();
        process.kill(-(npm.pid as number), "SIGINT");
        const stopped = await until(() => !groupAlive(npm.pid as number), STOP_TIMEOUT_MS);
        expect({ stopped, within: STOP_TIMEOUT_MS / 1000 }).toEqual({ stopped: true, within: STOP_TIMEOUT_MS / 1000 });
        const stopSeconds = (Date.now() - stopping) / 1000;
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
        const demoKek = readFileSync(kekFile);
        rmSync(kekFile);
        const otherKey = await runToExit(spawn("npm", ["start"], { cwd: dir, env, detached: true, stdio: ["ignore", "pipe", "pipe"] }), 120_000);
        writeFileSync(kekFile, demoKek, { mode: 0o600 }); // the key of the demo wallet again, for the tests below
        expect(otherKey.code).toBe(1);
        expect(otherKey.output).toMatch(/start failed: the demo wallet 0x[0-9a-fA-F]{40} in the database was sealed with another key-encryption key than \.dev\/kek/);
        expect(await listening(anvilPort)).toBe(false);

        process.stdout.write(`quick start: banner after ${startSeconds.toFixed(1)} s, stopped in ${stopSeconds.toFixed(1)} s\n`);
      }),
    BANNER_TIMEOUT_MS + STOP_TIMEOUT_MS + 60_000,
  );

  // A supervisor, `timeout`, an IDE or CI signals the pid it started, `npm start`, not its process
  // group; SIGKILL to the quick start's own process stands for its crash.
  const stops = [
    { how: "SIGTERM to npm start", signal: "SIGTERM", to: "npm" },
    { how: "SIGINT to npm start", signal: "SIGINT", to: "npm" },
    { how: "SIGHUP to npm start", signal: "SIGHUP", to: "npm" },
    { how: "SIGKILL to the quick start's own process", signal: "SIGKILL", to: "quick start" },
  ] as const;
  it.each(stops)(
    "$how stops everything it started",
    ({ signal, to }) =>
      reporting(async () => {
        if (!dir || !env) throw new Error("the first test did not get as far as making the copy");
        const npm = await startQuickstart(RESTART_TIMEOUT_MS);
        const pgid = npm.pid as number;
        try {
          // What it started: the quick start (with its orphan reaper), anvil, the gateway and each worker.
          const processes = groupProcesses(pgid);
          const quickstart = processes.find((p) => p.command.includes("scripts/quickstart/up.ts"));
          const started = ["gateway", "signing-worker", "tx-worker", "webhook-worker"].map((app) =>
            processes.find((p) => p.command.includes(`apps/${app}/dist/main.js`)),
          );
          started.push(processes.find((p) => /[/\\]anvil(\.exe)? /.test(p.command)));
          expect({ quickstart, started }).toEqual({ quickstart: expect.anything(), started: started.map(() => expect.anything()) });

          const stopping = Date.now();
          process.kill(to === "npm" ? pgid : (quickstart as ProcessInfo).pid, signal);
          // Those processes, and anything they started meanwhile (a restarted app).
          const left = () => [...processes.filter((p) => running(p.pid)), ...groupProcesses(pgid).filter((p) => !processes.some((q) => q.pid === p.pid))];
          const stopped = await until(() => left().length === 0, STOP_BOUND_MS);
          expect({ stopped, left: left() }).toEqual({ stopped: true, left: [] });
          expect(await listening(anvilPort)).toBe(false);
          expect(await listening(port)).toBe(false);
          if (to === "quick start") expect(output).toContain("The quick start ended without stopping its processes: stopping");
          else expect(output).toContain("Stopping…");
          process.stdout.write(`quick start, ${signal} to ${to}: stopped in ${((Date.now() - stopping) / 1000).toFixed(1)} s\n`);
        } finally {
          await killGroup(pgid); // what a failure left running would hold the ports of the next case
        }
      }),
    RESTART_TIMEOUT_MS + STOP_BOUND_MS + 30_000,
  );

  it(
    "starts nothing when the process that ran scripts/start.sh ended during the install (npm killed, or sent SIGHUP)",
    () =>
      reporting(async () => {
        if (!dir || !env) throw new Error("the first test did not get as far as making the copy");
        // As a fresh clone: the quick start must not even write its keys.
        const devDir = path.join(dir, ".dev");
        renameSync(devDir, `${devDir}-aside`);
        try {
          // start.sh passes the pid of the process that ran it; pid 1 is never this test's.
          const up = spawn(process.execPath, ["--import", "tsx", "scripts/quickstart/up.ts"], {
            cwd: dir,
            env: { ...env, QUICKSTART_PARENT_PID: "1" },
            detached: true,
            stdio: ["ignore", "pipe", "pipe"],
          });
          groups.push(up.pid as number);
          const ended = await runToExit(up, 60_000);
          output = ended.output;
          expect(ended).toEqual({ code: 0, output: "Stopping… (the process that started it has ended)\n" });
          expect(existsSync(devDir)).toBe(false);
          expect(await listening(anvilPort)).toBe(false);
          expect(await listening(port)).toBe(false);
        } finally {
          rmSync(devDir, { recursive: true, force: true });
          renameSync(`${devDir}-aside`, devDir);
        }
      }),
    90_000,
  );
});
