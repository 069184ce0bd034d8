import { loadGatewayConfig } from "@relay/config";
import { createLogger, runProcess } from "@relay/core";
import { createDatabase, createPool } from "@relay/db";
import { createProducer, createRedis, createResultWaiter, redisReady } from "@relay/queue";
import { createApp } from "./app";

async function main() {
  const config = loadGatewayConfig();
  const logger = createLogger({ name: "gateway", level: config.logLevel });
  const timeouts = { connectTimeoutMs: 3000, queryTimeoutMs: config.databaseQueryTimeoutMs };
  const pool = createPool({ url: config.databaseUrl, poolSize: 20, ...timeouts });
  const db = createDatabase({ pool });
  // Signature records only: a lost PENDING record fails its request cleanly (docs/decisions.md).
  const signaturePool = createPool({ url: config.databaseUrl, poolSize: 10, ...timeouts, asyncCommit: true });
  const redis = createRedis(config.redisUrl, "producer");
  redis.on("error", (err) => logger.warn({ err: err.message }, "redis connection error"));
  await redisReady(redis);
  const producer = createProducer({ connection: redis, prefix: config.queuePrefix });
  const signResults = createResultWaiter("personalSign", { connection: redis, prefix: config.queuePrefix });
  await signResults.ready();

  const app = createApp({ db, sql: pool, signatureSql: signaturePool, redis, producer, signResults, logger, settings: config });
  const server = app.listen(config.port, config.host, () => {
    logger.info({ host: config.host, port: config.port }, "gateway listening");
  });
  server.on("error", (err) => {
    process.stderr.write(`gateway failed to listen on ${config.host}:${config.port}: ${err.message}\n`);
    process.exit(1);
  });
  // Slow or idle clients must not hold sockets forever.
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;

  return {
    logger,
    // No new connections; requests in flight finish; then the connections close.
    stop: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await closed;
      await Promise.allSettled([signResults.close(), producer.close(), db.$disconnect(), pool.end(), signaturePool.end()]);
      await redis.quit().catch(() => undefined);
    },
  };
}

runProcess("gateway", main, 15_000);
