import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { createDatabase, createEventCallbackRepository, createPool, type Database } from "@relay/db";
import { createProjectFixture, createTestDatabase, deleteRedisKeys, testKek, testQueuePrefix, type TestDatabase } from "@relay/testing";
import { createRedis, type Redis } from "@relay/queue";
import { generateWebhookSecret, sealWebhookSecret, signDelivery } from "@relay/webhooks";

type Pool = ReturnType<typeof createPool>;

/**
 * At-least-once across a crash: a webhook-worker process is killed (SIGKILL) while the receiver
 * holds its delivery open; a new process delivers the event anyway (BullMQ gives the dead
 * worker's job to the new one once its lock has expired). The receiver may see the event twice,
 * with the same webhook-id.
 */

jest.setTimeout(90_000);

const ROOT = resolve(__dirname, "../../..");
const live = new Set<ChildProcess>();

function startWorker(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", "apps/webhook-worker/src/main.ts"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  live.add(child);
  const output: string[] = [];
  const exited = new Promise<void>((done) => child.once("exit", () => (live.delete(child), done())));
  const started = new Promise<void>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`webhook worker did not start:\n${output.join("\n")}`)), 30_000);
    createInterface({ input: child.stdout! }).on("line", (line) => {
      output.push(line);
      if (line.includes('"webhook worker started"')) {
        clearTimeout(timer);
        done();
      }
    });
    createInterface({ input: child.stderr! }).on("line", (line) => output.push(`[stderr] ${line}`));
    void exited.then(() => fail(new Error(`webhook worker ended:\n${output.join("\n")}`)));
  });
  return { child, started, exited, output };
}

const until = async (check: () => boolean | Promise<boolean>, timeoutMs: number, what: string) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe("webhook-worker killed mid-delivery", () => {
  let database: TestDatabase;
  let pool: Pool;
  let db: Database;
  let redis: Redis;
  let server: Server;
  const prefix = testQueuePrefix("webhook-kill");
  const webhookKey = randomBytes(32);
  const keyring = { activeKeyId: "k1", keys: new Map([["k1", webhookKey]]) };
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const held: ServerResponse[] = [];

  beforeAll(async () => {
    database = await createTestDatabase({ migrate: true });
    pool = createPool({ url: database.url });
    db = createDatabase({ pool });
    redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "producer");
    // The first request is held open (never answered); every later one gets 200.
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        received.push({ headers: req.headers, body });
        if (received.length === 1) held.push(res);
        else res.end("ok");
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  });
  afterAll(async () => {
    for (const child of live) child.kill("SIGKILL");
    for (const res of held) res.destroy();
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
    if (redis) {
      await deleteRedisKeys(redis, prefix);
      await redis.quit();
    }
    await db?.$disconnect();
    if (pool && !pool.ended) await pool.end();
    await database?.drop();
  });

  it("delivers the event after the worker holding it was killed", async () => {
    const project = await createProjectFixture(db, testKek());
    const secret = generateWebhookSecret();
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const registration = await createEventCallbackRepository({ sql: pool, db }).create({
      projectId: project.projectId,
      callbackUrl: url,
      eventType: "TransactionStatusChange",
      sealSecret: (id) => sealWebhookSecret(keyring, id, secret),
    });

    // An outbox event as a status change writes it.
    const eventId = randomUUID();
    const payload = {
      id: eventId,
      eventType: "TransactionStatusChange",
      projectId: project.projectId,
      createdAt: new Date().toISOString(),
      data: { transactionId: randomUUID(), chainId: 31337, status: "PENDING", previousStatus: null, hash: null, blockNumber: null, from: project.wallets[0]!.address, nonce: null, reason: null },
    };
    await pool.query(`INSERT INTO event (id, project_id, event_type, payload, created_at) VALUES ($1, $2, 'TransactionStatusChange', $3, now())`, [
      eventId,
      project.projectId,
      JSON.stringify(payload),
    ]);

    const env: Record<string, string> = {
      NODE_ENV: "test",
      DATABASE_URL: database.url,
      REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
      QUEUE_PREFIX: prefix,
      LOG_LEVEL: "info",
      WEBHOOK_SECRET_KEY: webhookKey.toString("base64"),
      WEBHOOK_SECRET_KEY_ID: "k1",
      WEBHOOK_ALLOW_PRIVATE: "true",
      WEBHOOK_RETRY_SCHEDULE: "200ms,200ms,200ms,200ms,200ms",
      // The dead worker's job comes back once its lock expires and a stalled check sees it.
      WEBHOOK_JOB_LOCK_MS: "2000",
    };
    for (const name of ["PATH", "HOME", "TMPDIR"]) if (process.env[name] !== undefined) env[name] = process.env[name]!;

    const first = startWorker(env);
    await first.started;
    await until(() => received.length >= 1, 20_000, "the first delivery attempt");
    first.child.kill("SIGKILL");
    await first.exited;
    // The held request went nowhere: the receiver answers the next ones.
    for (const res of held) res.destroy();

    const second = startWorker(env);
    await second.started;
    // The dead worker's job comes back once its lock expires (WEBHOOK_JOB_LOCK_MS), then the stalled check.
    await until(() => received.length >= 2, 60_000, "the delivery after the restart");
    await until(
      async () => (await pool.query(`SELECT status FROM webhook_delivery WHERE event_id = $1`, [eventId])).rows[0]?.status === "DELIVERED",
      10_000,
      "the delivery recorded as DELIVERED",
    );

    // Every attempt is the same event, same webhook-id, signed with the registration's secret.
    for (const r of received) {
      expect(r.headers["webhook-id"]).toBe(eventId);
      expect(JSON.parse(r.body)).toMatchObject({ id: eventId, projectId: project.projectId });
      const timestamp = new Date(Number(r.headers["webhook-timestamp"]) * 1000);
      expect(r.headers["webhook-signature"]).toBe(signDelivery({ secret, msgId: eventId, timestamp, body: r.body })["webhook-signature"]);
    }
    const stats = await pool.query<{ response_status: number }>(`SELECT response_status FROM event_callback_stat WHERE event_callback_id = $1`, [registration.id]);
    expect(stats.rows.map((r) => r.response_status)).toContain(200);

    second.child.kill("SIGTERM");
    await second.exited;
  });
});
