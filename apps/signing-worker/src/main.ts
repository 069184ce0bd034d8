import { loadSigningWorkerConfig } from "@relay/config";
import { createLogger, runProcess } from "@relay/core";
import { createMetricsRegistry, serveWorkerMetrics } from "@relay/metrics";
import { createDatabase, createPool, createWalletRepository } from "@relay/db";
import { createLocalSigner } from "@relay/custody";
import { createProducer, createRedis, keepScheduled } from "@relay/queue";
import { createSigningWorker, scheduleSigningJobs } from "./worker";

async function main() {
  const config = loadSigningWorkerConfig();
  const logger = createLogger({ name: "signing-worker", level: config.logLevel });
  // Commits wait for the WAL flush: a signature answered 200 is in Postgres even if it crashes
  // right after (its PENDING record, written without waiting, is flushed by the same commit). One
  // flush per batch of signatures; no difference measured in bench:personal-sign.
  const pool = createPool({ url: config.databaseUrl, poolSize: Math.min(config.concurrency, 20), queryTimeoutMs: config.databaseQueryTimeoutMs });
  const db = createDatabase({ pool });
  const redis = createRedis(config.redisUrl, "worker");
  redis.on("error", (err) => logger.warn({ err: err.message }, "redis connection error"));
  const metricsRegistry = createMetricsRegistry({ processMetrics: true });
  const worker = createSigningWorker({
    metricsRegistry,
    sql: pool,
    redis,
    signer: createLocalSigner(config.kek, { loadKey: createWalletRepository(db).findWithKey }),
    logger,
    queuePrefix: config.queuePrefix,
    concurrency: config.concurrency,
    autorun: false,
  });
  await worker.ready();
  const metricsServer = await serveWorkerMetrics(config.metrics, metricsRegistry, logger);
  const producer = createProducer({ connection: redis, prefix: config.queuePrefix });
  const schedules = await keepScheduled({ redis, logger, schedule: () => scheduleSigningJobs(producer) });
  // Jobs only now that start-up is complete: a start-up that fails leaves none locked to this process.
  worker.run();
  logger.info({ concurrency: config.concurrency, queuePrefix: config.queuePrefix }, "signing worker started");

  return {
    logger,
    graceMs: config.shutdownGraceMs,
    // No new jobs; active ones finish within SHUTDOWN_GRACE_MS or go back to the queue for another
    // replica; jobs not started stay in Redis.
    stop: async () => {
      schedules.stop();
      const { handedBack } = await worker.close({ graceMs: config.shutdownGraceMs });
      logger.info({ handedBack }, "jobs in flight finished or handed back; closing connections");
      await producer.close();
      await metricsServer.close();
      await Promise.allSettled([db.$disconnect(), pool.end(), redis.quit()]);
    },
  };
}

runProcess("signing-worker", main);
