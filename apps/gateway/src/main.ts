import { loadGatewayConfig } from "@relay/config";
import { createLogger, runProcess, toError } from "@relay/core";
import { createDatabase, createPool, warnIfAuditWritable } from "@relay/db";
import { createMetricsRegistry } from "@relay/metrics";
import { createProducer, createRedis, createResultWaiter, redisReady } from "@relay/queue";
import { resolve } from "node:path";
import { createApp } from "./app";
import { drainableServer } from "./http-drain";
import { createHttpServer } from "./http-server";

async function main() {
  const config = loadGatewayConfig();
  const logger = createLogger({ name: "gateway", level: config.logLevel });
  const timeouts = { connectTimeoutMs: 3000, queryTimeoutMs: config.databaseQueryTimeoutMs, pooler: config.databasePooler };
  const pool = createPool({ url: config.databaseUrl, poolSize: 20, ...timeouts });
  const db = createDatabase({ pool });
  // Not awaited: a Postgres that is down at start is the readiness check's business, not this one's.
  void warnIfAuditWritable(pool, logger);
  // Signature records only: a lost PENDING record fails its request cleanly (docs/architecture.md).
  const signaturePool = createPool({ url: config.databaseUrl, poolSize: 10, ...timeouts, asyncCommit: true });
  const redis = createRedis(config, "producer");
  redis.on("error", (err) => logger.warn({ err: err.message }, "redis connection error"));
  // Redis is not waited for: a gateway started while it is down serves (sendTransaction is stored
  // in Postgres and enqueued by the tx-worker's reconciler once Redis answers; personal signs
  // answer 500 until then) instead of failing its start, again and again, for the whole outage.
  const producer = createProducer({ connection: redis, prefix: config.queuePrefix });
  const signResults = createResultWaiter("personalSign", { connection: redis, prefix: config.queuePrefix });
  const walletResults = createResultWaiter("createWallet", { connection: redis, prefix: config.queuePrefix });
  void Promise.all([redisReady(redis), signResults.ready(), walletResults.ready()]).catch((e: unknown) =>
    logger.warn({ err: toError(e).message }, "Redis does not answer; serving without it until it does (personal signs fail, transactions are stored and enqueued later)"),
  );

  const metrics = createMetricsRegistry({ processMetrics: true });
  // apps/gateway/src/main.ts and the bundle apps/gateway/dist/main.js are both two folders below apps/.
  const settings = { ...config, consoleDir: config.consoleDir ?? resolve(__dirname, "../../console/dist") };
  const app = createApp({ db, sql: pool, signatureSql: signaturePool, redis, producer, signResults, walletResults, logger, metrics, settings });
  const server = createHttpServer(app).listen(config.port, config.host, () => {
    logger.info({ host: config.host, port: config.port }, "gateway listening");
  });
  server.on("error", (err) => {
    process.stderr.write(`gateway failed to listen on ${config.host}:${config.port}: ${err.message}\n`);
    process.exit(1);
  });
  const http = drainableServer(server);

  return {
    logger,
    graceMs: config.shutdownGraceMs,
    // New connections refused at once; requests in flight finish (their sign results still
    // arrive), at most SHUTDOWN_GRACE_MS; then Redis and Postgres close.
    stop: async () => {
      const { cut } = await http.drain(config.shutdownGraceMs);
      if (cut > 0) logger.warn({ cut }, "requests still unanswered at the end of the grace period were cut");
      else logger.info("requests in flight answered; closing connections");
      await Promise.allSettled([signResults.close(), walletResults.close(), producer.close(), db.$disconnect(), pool.end(), signaturePool.end()]);
      await redis.quit().catch(() => undefined);
    },
  };
}

runProcess("gateway", main);
