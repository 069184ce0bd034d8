import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { Writable } from "node:stream";
import { createLogger, type Logger } from "@relay/core";
import { createDatabase, createPool, createWalletRepository, type Database } from "@relay/db";
import { testDatabasePooler } from "@relay/testing";
import { createCustodySigner, newWalletKey, type ExternalKeyBackend, type Kek } from "@relay/custody";
import type { Registry } from "@relay/metrics";
import { createProducer, createRedis, createResultWaiter, redisReady, type Redis, type RedisTarget, type WorkerGroup } from "@relay/queue";
import { createSigningWorker } from "@relay/signing-worker";
import { createTxWorker } from "@relay/tx-worker";
import { createWebhookWorker } from "@relay/webhook-worker";
import { deleteRedisKeys, testDatabaseUrl, testKek, testQueuePrefix } from "@relay/testing";
import { createApp, createHttpServer, gatewayHttpTimeouts, type GatewayDeps, type HttpTimeouts } from "@relay/gateway";

/** Captures every log line of the system under test, so tests can scan them for secrets. */
export function captureLogs(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger({ name: "test", level: "info", destination }), lines };
}

export interface Harness {
  baseUrl: string;
  /** The gateway's HTTP server (tests count its open connections). */
  server: Server;
  db: Database;
  kek: Kek;
  /** The key webhook secrets are sealed with (tests check it never leaks). */
  webhookKeyring: Kek;
  redis: Redis;
  prefix: string;
  logs: string[];
  startWorker(): Promise<void>;
  stopWorker(): Promise<void>;
  /** The transaction worker, in-process (tests of sendTransaction start it). */
  startTxWorker(options?: { concurrency?: number }): Promise<void>;
  stopTxWorker(): Promise<void>;
  /** The webhook worker, in-process, allowed to deliver to loopback receivers. */
  startWebhookWorker(options?: { retrySchedule?: string; allowPrivateNetworks?: boolean }): Promise<void>;
  stopWebhookWorker(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The gateway on a free port and the real signing worker in-process, on the run's database.
 *
 * `databaseUrl`: a database of the test's own, for tests whose workers claim every project's rows
 * (the webhook dispatcher takes all undispatched events) and would disturb tests running beside them.
 * `workerMetrics`: the registry the in-process workers record job latency and delivery attempts in.
 * `http`: shorter HTTP timeouts than the gateway's, for tests of slow clients.
 * `redis` and `queuePrefix`: another Redis (a cluster's seeds) and the prefix it needs (a hash tag).
 */
export async function startHarness(
  label: string,
  settings: Partial<GatewayDeps["settings"]> = {},
  options: { databaseUrl?: string; redis?: RedisTarget; queuePrefix?: string; workerMetrics?: Registry; http?: Partial<HttpTimeouts>; custody?: { hsm?: ExternalKeyBackend; kms?: ExternalKeyBackend } } = {},
): Promise<Harness> {
  const pool = createPool({ url: options.databaseUrl ?? testDatabaseUrl(), pooler: testDatabasePooler() });
  const db = createDatabase({ pool });
  const kek = testKek();
  // The workers' custody, as their main.ts builds it: LOCAL always, HSM and KMS when the test gives them.
  const keys = { kek, ...options.custody };
  const webhookKeyring = testKek();
  const prefix = options.queuePrefix ?? testQueuePrefix(label);
  const redisTarget = options.redis ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const workerMetrics = options.workerMetrics;
  const redis = createRedis(redisTarget, "producer");
  const workerRedis = createRedis(redisTarget, "worker");
  const { logger, lines } = captureLogs();
  const producer = createProducer({ connection: redis, prefix });
  const signResults = createResultWaiter("personalSign", { connection: redis, prefix });
  const walletResults = createResultWaiter("createWallet", { connection: redis, prefix });
  // As main.ts does: the gateway starts on a connection that is up.
  await Promise.all([redisReady(redis), signResults.ready(), walletResults.ready()]);

  const app = createApp({
    db,
    sql: pool,
    signatureSql: pool,
    redis,
    producer,
    signResults,
    walletResults,
    logger,
    settings: {
      bodyLimitBytes: 64 * 1024,
      signTimeoutMs: 5000,
      rateLimitPerMinute: 100_000,
      authCacheTtlMs: 0,
      queuePrefix: prefix,
      trustProxy: "loopback",
      host: "127.0.0.1",
      env: "test",
      webhookKeyring,
      webhookRotationGraceMs: 24 * 60 * 60 * 1000,
      maxCallbacksPerProject: 25,
      ...settings,
    },
  });
  const server: Server = await new Promise((resolve) => {
    const s = createHttpServer(app, { ...gatewayHttpTimeouts, ...options.http }).listen(0, "127.0.0.1", () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;

  let worker: WorkerGroup | undefined;
  let txWorker: WorkerGroup | undefined;
  let webhookWorker: WorkerGroup | undefined;
  const webhookRedis = createRedis(redisTarget, "worker");
  const txRedis = createRedis(redisTarget, "worker");
  const harness: Harness = {
    baseUrl: `http://127.0.0.1:${port}`,
    server,
    db,
    kek,
    webhookKeyring,
    redis,
    prefix,
    logs: lines,
    startWorker: async () => {
      worker = createSigningWorker({
        sql: pool,
        redis: workerRedis,
        signer: createCustodySigner({ ...keys, loadKey: createWalletRepository(db).findWithKey }),
        newWallets: { wallets: createWalletRepository(db), newKey: (backend) => newWalletKey(keys, backend), audit: db },
        logger,
        queuePrefix: prefix,
        concurrency: 16,
        metricsRegistry: workerMetrics,
      });
      await worker.ready();
    },
    stopWorker: async () => {
      await worker?.close();
      worker = undefined;
    },
    startTxWorker: async (options = {}) => {
      txWorker = createTxWorker({
        db,
        sql: pool,
        redis: txRedis,
        signer: createCustodySigner({ ...keys, loadKey: createWalletRepository(db).findWithKey }),
        logger,
        queuePrefix: prefix,
        concurrency: options.concurrency ?? 16,
        rpcTimeoutMs: 10_000,
        metricsRegistry: workerMetrics,
      });
      await txWorker.ready();
    },
    stopTxWorker: async () => {
      await txWorker?.close();
      txWorker = undefined;
    },
    startWebhookWorker: async (options = {}) => {
      webhookWorker = createWebhookWorker({
        db,
        sql: pool,
        redis: webhookRedis,
        logger,
        keyring: webhookKeyring,
        queuePrefix: prefix,
        concurrency: 16,
        allowPrivateNetworks: options.allowPrivateNetworks ?? true,
        retrySchedule: options.retrySchedule ?? "200ms,400ms,800ms",
        connectTimeoutMs: 1000,
        totalTimeoutMs: 2000,
        metricsRegistry: workerMetrics,
      });
      await webhookWorker.ready();
    },
    stopWebhookWorker: async () => {
      await webhookWorker?.close();
      webhookWorker = undefined;
    },
    close: async () => {
      await worker?.close();
      await txWorker?.close();
      await webhookWorker?.close();
      await new Promise((r) => server.close(r));
      await signResults.close();
      await walletResults.close();
      await producer.close();
      await deleteRedisKeys(redis, prefix);
      await Promise.allSettled([redis.quit(), workerRedis.quit(), txRedis.quit(), webhookRedis.quit(), db.$disconnect(), pool.end()]);
    },
  };
  await harness.startWorker();
  return harness;
}

export async function post(baseUrl: string, path: string, body: unknown, apiKey?: string, raw = false) {
  const res = await fetch(baseUrl + path, {
    method: "POST",
    headers: { "content-type": "application/json", ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
    body: raw ? (body as string) : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, body: json as Record<string, unknown>, text, headers: res.headers };
}

/** POSTs sendTransaction for `project` (its id and API key filled in); the answer as `post` gives it. */
export const sendTransaction = (baseUrl: string, project: { projectId: string; apiKey: string }, body: Record<string, unknown>) =>
  post(baseUrl, "/transact/sendTransaction", { projectId: project.projectId, ...body }, project.apiKey);

