import { loadWebhookWorkerConfig } from "@relay/config";
import { createLogger, runProcess } from "@relay/core";
import { createMetricsRegistry, serveWorkerMetrics } from "@relay/metrics";
import { createDatabase, createPool } from "@relay/db";
import { createRedis, keepScheduled } from "@relay/queue";
import { createWebhookWorker } from "./worker";

async function main() {
  const config = loadWebhookWorkerConfig();
  const logger = createLogger({ name: "webhook-worker", level: config.logLevel });
  const pool = createPool({ url: config.databaseUrl, poolSize: Math.min(config.concurrency, 20), queryTimeoutMs: config.databaseQueryTimeoutMs });
  const db = createDatabase({ pool });
  const redis = createRedis(config.redisUrl, "worker");
  redis.on("error", (err) => logger.warn({ err: err.message }, "redis connection error"));
  const metricsRegistry = createMetricsRegistry({ processMetrics: true });
  const worker = createWebhookWorker({ ...config, db, sql: pool, redis, logger, keyring: config.webhookKeyring, metricsRegistry, autorun: false });
  await worker.ready();
  const metricsServer = await serveWorkerMetrics(config.metrics, metricsRegistry, logger);
  const schedules = await keepScheduled({ redis, logger, schedule: worker.schedule });
  // Jobs and dispatch only now that start-up is complete: a start-up that fails leaves nothing locked to this process.
  worker.run();
  logger.info({ concurrency: config.concurrency, allowPrivateNetworks: config.allowPrivateNetworks }, "webhook worker started");
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

runProcess("webhook-worker", main);
