import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { Writable } from "node:stream";
import { createLogger, type Logger } from "@relay/core";
import { createDatabase, createPool, type Database } from "@relay/db";
import { createProducer, createRedis, createResultWaiter, redisReady } from "@relay/queue";
import type { Kek } from "@relay/secrets";
import { deleteRedisKeys, testDatabaseUrl, testKek, testQueuePrefix } from "@relay/testing";
import { createApp, type GatewayDeps } from "../src/app";
import { createHttpServer, gatewayHttpTimeouts, type HttpTimeouts } from "../src/http-server";

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
  /** The key the test's wallets are sealed with (createProjectFixture). */
  kek: Kek;
  /** Every log line the gateway wrote. */
  logs: string[];
  close(): Promise<void>;
}

/**
 * The gateway alone on a free port, on the run's database: no worker takes its jobs, so what a
 * test here sees is the gateway's own answer. Tests that need a worker to answer live in e2e/.
 *
 * `databaseUrl`: a database of the test's own. `http`: shorter HTTP timeouts than the gateway's,
 * for tests of slow clients.
 */
export async function startHarness(
  label: string,
  settings: Partial<GatewayDeps["settings"]> = {},
  options: { databaseUrl?: string; http?: Partial<HttpTimeouts> } = {},
): Promise<Harness> {
  const pool = createPool({ url: options.databaseUrl ?? testDatabaseUrl() });
  const db = createDatabase({ pool });
  const kek = testKek();
  const prefix = testQueuePrefix(label);
  const redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "producer");
  const { logger, lines } = captureLogs();
  const producer = createProducer({ connection: redis, prefix });
  const signResults = createResultWaiter("personalSign", { connection: redis, prefix });
  // As main.ts does: the gateway starts on a connection that is up.
  await Promise.all([redisReady(redis), signResults.ready()]);

  const app = createApp({
    db,
    sql: pool,
    signatureSql: pool,
    redis,
    producer,
    signResults,
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
      webhookKeyring: testKek(),
      webhookRotationGraceMs: 24 * 60 * 60 * 1000,
      maxCallbacksPerProject: 25,
      ...settings,
    },
  });
  const server: Server = await new Promise((resolve) => {
    const s = createHttpServer(app, { ...gatewayHttpTimeouts, ...options.http }).listen(0, "127.0.0.1", () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    server,
    db,
    kek,
    logs: lines,
    close: async () => {
      await new Promise((r) => server.close(r));
      await signResults.close();
      await producer.close();
      await deleteRedisKeys(redis, prefix);
      await Promise.allSettled([redis.quit(), db.$disconnect(), pool.end()]);
    },
  };
}

export async function post(baseUrl: string, path: string, body: unknown, apiKey?: string) {
  const res = await fetch(baseUrl + path, {
    method: "POST",
    headers: { "content-type": "application/json", ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
    body: JSON.stringify(body),
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
