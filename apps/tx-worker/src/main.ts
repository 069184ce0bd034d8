import { loadTxWorkerConfig } from "@relay/config";
import { createLogger, runProcess } from "@relay/core";
import { createMetricsRegistry, serveWorkerMetrics } from "@relay/metrics";
import { createDatabase, createPool, createWalletRepository } from "@relay/db";
import { createLocalSigner } from "@relay/custody";
import { createRedis, keepScheduled } from "@relay/queue";
import { createTxWorker } from "./worker";

async function main() {
  const config = loadTxWorkerConfig();
  const logger = createLogger({ name: "tx-worker", level: config.logLevel });
  const pool = createPool({ url: config.databaseUrl, poolSize: Math.min(config.concurrency, 20), queryTimeoutMs: config.databaseQueryTimeoutMs });
  const db = createDatabase({ pool });
  const redis = createRedis(config.redisUrl, "worker");
  redis.on("error", (err) => logger.warn({ err: err.message }, "redis connection error"));
  const metricsRegistry = createMetricsRegistry({ processMetrics: true });
  const worker = createTxWorker({
    metricsRegistry,
    db,
    sql: pool,
    redis,
    signer: createLocalSigner(config.kek, { loadKey: createWalletRepository(db).findWithKey }),
    logger,
    queuePrefix: config.queuePrefix,
    concurrency: config.concurrency,
    rpcTimeoutMs: config.rpcTimeoutMs,
    jobLockMs: config.jobLockMs,
    reconcileAfterMs: config.reconcileAfterMs,
    autorun: false,
  });
  await worker.ready();
  const metricsServer = await serveWorkerMetrics(config.metrics, metricsRegistry, logger);
  const schedules = await keepScheduled({
    redis,
    logger,
    schedule: async () => {
      await worker.producer.schedule("reconcileTransactions");
      await worker.producer.schedule("reconcileNonces");
      await worker.producer.schedule("checkBalances");
    },
  });
  // Jobs only now that start-up is complete: a start-up that fails leaves none locked to this process.
  worker.run();
  logger.info({ concurrency: config.concurrency, queuePrefix: config.queuePrefix }, "tx worker started");

  return {
    logger,
    graceMs: config.shutdownGraceMs,
    // No new jobs; active ones finish within SHUTDOWN_GRACE_MS or go back to the queue for another
    // replica; jobs not started stay in Redis.
    stop: async () => {
      schedules.stop();
      const { handedBack } = await worker.close({ graceMs: config.shutdownGraceMs });
      logger.info({ handedBack }, "jobs in flight finished or handed back; closing connections");
      await metricsServer.close();
      await Promise.allSettled([db.$disconnect(), pool.end(), redis.quit()]);
    },
  };
}

runProcess("tx-worker", main);
