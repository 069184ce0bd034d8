/**
 * The production image's folder, made as the Dockerfile makes it (`pnpm build`, then
 * scripts/build/assemble.ts into an empty folder), and the apps started from it with `node`
 * against the real Postgres and Redis: the migrate step, the gateway (health, readiness, and the
 * reference page and queue dashboard, whose files come from installed packages) and a worker.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { createTestDatabase, deleteRedisKeys, freePort, testQueuePrefix, type TestDatabase } from "@relay/testing";
import { TARGETS } from "./targets";

const root = path.resolve(__dirname, "../..");
const runtimeDependencies = Object.keys((require(path.join(root, "runtime/package.json")) as { dependencies: Record<string, string> }).dependencies);

// ioredis is a dependency of @relay/testing, not of the workspace root this file resolves from.
type RedisClient = Parameters<typeof deleteRedisKeys>[0];
const { Redis } = createRequire(require.resolve("@relay/testing"))("ioredis") as { Redis: new (url: string, options: object) => RedisClient };

interface Started {
  child: ChildProcess;
  output: string[];
  waitFor(msg: string): Promise<void>;
}

/** `node <file>` in `cwd` with only `env` (and PATH), its stdout and stderr kept. */
function startNode(cwd: string, file: string, env: Record<string, string>): Started {
  const child = spawn(process.execPath, [file], { cwd, env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const output: string[] = [];
  const waiters = new Map<string, () => void>();
  const read = (line: string) => {
    output.push(line);
    for (const [msg, done] of waiters) if (line.includes(`"msg":"${msg}"`)) done();
  };
  createInterface({ input: child.stdout! }).on("line", read);
  createInterface({ input: child.stderr! }).on("line", read);
  return {
    child,
    output,
    waitFor: (msg) =>
      new Promise<void>((resolve, reject) => {
        if (output.some((line) => line.includes(`"msg":"${msg}"`))) return resolve();
        waiters.set(msg, resolve);
        child.once("exit", (code) => reject(new Error(`${file} exited (${code}) before logging "${msg}":\n${output.join("\n")}`)));
      }),
  };
}

async function stop(started: Started | undefined): Promise<void> {
  if (!started || started.child.exitCode !== null || started.child.signalCode !== null) return;
  const exited = new Promise((resolve) => started.child.once("exit", resolve));
  started.child.kill("SIGTERM");
  await exited;
}

describe("the production layout (pnpm build + scripts/build/assemble.ts)", () => {
  let tmp: string;
  let app: string;
  let database: TestDatabase;
  const queuePrefix = testQueuePrefix("production-layout");
  const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const running: Started[] = [];

  beforeAll(async () => {
    tmp = mkdtempSync(path.join(tmpdir(), "production-layout-"));
    app = path.join(tmp, "app");
    for (const step of [["scripts/build/build.ts"], ["scripts/build/assemble.ts", app]]) {
      const run = spawnSync(process.execPath, ["--import", "tsx", ...step], { cwd: root, encoding: "utf8" });
      if (run.status !== 0) throw new Error(`${step[0]} failed:\n${run.stdout}${run.stderr}`);
    }
    database = await createTestDatabase({ migrate: false });
  }, 240_000);

  afterAll(async () => {
    await Promise.all(running.map(stop));
    await database?.drop();
    const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
    await deleteRedisKeys(redis, queuePrefix);
    await redis.quit();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it("holds the bundles and only the packages they require: no TypeScript, tsx or esbuild", () => {
    for (const target of TARGETS) expect(existsSync(path.join(app, target.outfile))).toBe(true);
    expect(readdirSync(path.join(app, "node_modules")).filter((name) => !name.startsWith("."))).toEqual(
      [...new Set(runtimeDependencies.map((name) => name.split("/")[0]))].sort(),
    );
    const store = readdirSync(path.join(app, "node_modules", ".pnpm"));
    for (const devOnly of ["typescript@", "tsx@", "esbuild@", "prisma@", "@prisma+"]) {
      expect(store.filter((entry) => entry.startsWith(devOnly))).toEqual([]);
    }
    // Asked of node itself from an app's folder (jest resolves modules its own way).
    const resolvable = spawnSync(
      process.execPath,
      ["-e", 'for (const n of ["typescript", "tsx", "esbuild", "bullmq"]) { try { require.resolve(n); console.log(n) } catch {} }'],
      { cwd: path.join(app, "apps", "gateway", "dist"), env: { PATH: process.env.PATH ?? "" }, encoding: "utf8" },
    );
    expect(resolvable.stdout.trim().split("\n")).toEqual(["bullmq"]);
  });

  it("migrates a database, then runs the gateway and a worker with node", async () => {
    const migrate = spawnSync(process.execPath, ["packages/db/dist/migrate.js"], {
      cwd: app,
      env: { PATH: process.env.PATH ?? "", DATABASE_URL: database.url, LOG_LEVEL: "info" },
      encoding: "utf8",
    });
    expect(migrate.stdout).toContain('"msg":"database migrated"');
    expect(migrate.status).toBe(0);

    const common = { NODE_ENV: "production", DATABASE_URL: database.url, REDIS_URL: redisUrl, QUEUE_PREFIX: queuePrefix, LOG_LEVEL: "info", SHUTDOWN_GRACE_MS: "2000" };
    const port = await freePort();
    const adminToken = randomBytes(16).toString("hex");
    const gateway = startNode(app, "apps/gateway/dist/main.js", {
      ...common,
      HOST: "127.0.0.1",
      PORT: String(port),
      WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
      ADMIN_TOKEN: adminToken,
    });
    running.push(gateway);
    const worker = startNode(app, "apps/tx-worker/dist/main.js", { ...common, KEY_ENCRYPTION_KEY: randomBytes(32).toString("base64") });
    running.push(worker);

    await gateway.waitFor("gateway listening");
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/health`)).status).toBe(200);
    const ready = await fetch(`${base}/ready`);
    expect({ status: ready.status, body: await ready.json() }).toMatchObject({ status: 200, body: { status: "ready" } });
    // swagger-ui's files, served from its package in node_modules.
    const css = await fetch(`${base}/docs/swagger-ui.css`);
    expect(css.status).toBe(200);
    expect(await css.text()).toContain(".swagger-ui");
    // The queue dashboard's page, rendered from @bull-board/ui's template.
    const dashboard = await fetch(`${base}/admin/queues`, { headers: { authorization: `Bearer ${adminToken}` } });
    expect(dashboard.status).toBe(200);
    expect(await dashboard.text()).toContain('<base href="/admin/queues/"');
    // The console, from the files the layout carries beside the gateway's bundle.
    const consoleScript = await fetch(`${base}/console/assets/console.js`);
    expect(consoleScript.status).toBe(200);
    expect((await fetch(`${base}/console/transactions`)).status).toBe(200);

    await worker.waitFor("tx worker started");
  }, 120_000);
});
