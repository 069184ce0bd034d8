import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createLogger } from "@relay/core";
import { createDatabase, createPool, type Database } from "@relay/db";
import { createTestDatabase, deleteRedisKeys, testQueuePrefix, type TestDatabase } from "@relay/testing";
import { createRedis, type Redis } from "@relay/queue";
import type { Kek } from "@relay/secrets";
import { createWebhookWorker, type WebhookWorkerDeps } from "../src/worker";

type Pool = ReturnType<typeof createPool>;

/** Polls `check` every 100 ms; fails naming `what` after `timeoutMs`. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A receiver on loopback that holds the first request open (never answers it) and answers every
 * later one 200: a delivery stays in flight in the worker that sent it. `release()` drops the held
 * request; `close()` drops everything.
 */
export async function holdingReceiver() {
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      if (received.length === 1) held.push(res);
      else res.end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const release = () => {
    for (const res of held.splice(0)) res.destroy();
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    release,
    close: async () => {
      release();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** One outbox event of a transaction's PENDING status, as a status change writes it; its id. */
export async function insertStatusChangeEvent(pool: Pool, project: { projectId: string; wallets: { address: string }[] }): Promise<string> {
  const eventId = randomUUID();
  const transactionId = randomUUID();
  const payload = {
    id: eventId,
    eventType: "TransactionStatusChange",
    projectId: project.projectId,
    createdAt: new Date().toISOString(),
    data: { transactionId, chainId: 31337, status: "PENDING", previousStatus: null, hash: null, blockNumber: null, from: project.wallets[0]!.address, nonce: null, reason: null },
  };
  await pool.query(
    `INSERT INTO event (id, project_id, event_type, subject, payload, created_at) VALUES ($1, $2, 'TransactionStatusChange', $3, $4, now())`,
    [eventId, project.projectId, transactionId, JSON.stringify(payload)],
  );
  return eventId;
}

/** Ends what a worker test opened on its own database and Redis prefix; parts never opened are skipped. */
export async function closeTestBackends(b: { redis?: Redis; prefix: string; db?: Database; pool?: Pool; database?: TestDatabase }): Promise<void> {
  if (b.redis) {
    await deleteRedisKeys(b.redis, b.prefix);
    await b.redis.quit();
  }
  await b.db?.$disconnect();
  if (b.pool && !b.pool.ended) await b.pool.end();
  await b.database?.drop();
}


/** What a worker test runs on: a database of its own (the dispatcher takes every project's events), a Redis prefix of its own. */
export interface OwnBackends {
  database: TestDatabase;
  pool: Pool;
  db: Database;
  redis: Redis;
  prefix: string;
  close(): Promise<void>;
}

export async function ownBackends(name: string, poolSize: number): Promise<OwnBackends> {
  const prefix = testQueuePrefix(name);
  const database = await createTestDatabase({ migrate: true });
  const pool = createPool({ url: database.url, poolSize });
  const db = createDatabase({ pool });
  const redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "worker");
  return { database, pool, db, redis, prefix, close: () => closeTestBackends({ redis, prefix, db, pool, database }) };
}

/** An in-process webhook worker on `backends`: loopback receivers allowed, retries 200 ms apart, short time-outs. */
export function testWebhookWorker(backends: OwnBackends, keyring: Kek, concurrency: number, overrides: Partial<WebhookWorkerDeps> = {}) {
  return createWebhookWorker({
    db: backends.db,
    sql: backends.pool,
    redis: backends.redis,
    logger: createLogger({ name: "test", level: "silent" }),
    keyring,
    queuePrefix: backends.prefix,
    concurrency,
    allowPrivateNetworks: true,
    retrySchedule: "200ms",
    connectTimeoutMs: 1000,
    totalTimeoutMs: 2000,
    ...overrides,
  });
}
