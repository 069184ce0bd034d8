import { loadGatewayConfig } from "@relay/config";
import { createLogger, toError } from "@relay/core";
import { createDatabase, createPool } from "@relay/db";
import { createProducer, createRedis, createResultWaiter, redisReady } from "@relay/queue";
import { createApp } from "./app";

async function main() {
  const config = loadGatewayConfig();
  const logger = createLogger({ name: "gateway", level: config.logLevel });
  const pool = createPool({ url: config.databaseUrl, poolSize: 20, connectTimeoutMs: 3000 });
  const db = createDatabase({ pool });
  // Signature records only: a lost PENDING record fails its request cleanly (docs/decisions.md).
  const signaturePool = createPool({ url: config.databaseUrl, poolSize: 10, connectTimeoutMs: 3000, asyncCommit: true });
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

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "stopping: no new connections, finishing requests in flight");
    server.close(() => {
      void Promise.allSettled([signResults.close(), producer.close(), db.$disconnect(), pool.end(), signaturePool.end()]).then(async () => {
        await redis.quit().catch(() => undefined);
        logger.info("stopped");
        process.exit(0);
      });
    });
    server.closeIdleConnections();
    setTimeout(() => process.exit(1), 15_000).unref();
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("unhandledRejection", (reason) => logger.error({ err: toError(reason) }, "unhandled rejection"));
}

main().catch((e: unknown) => {
  process.stderr.write(`gateway failed to start: ${toError(e).message}\n`);
  process.exit(1);
});
