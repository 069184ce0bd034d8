import { loadWebhookWorkerConfig } from "@relay/config";
import { createLogger, runProcess } from "@relay/core";
import { createDatabase, createPool } from "@relay/db";
import { createRedis, keepScheduled } from "@relay/queue";
import { createWebhookWorker } from "./worker";

async function main() {
  const config = loadWebhookWorkerConfig();
  const logger = createLogger({ name: "webhook-worker", level: config.logLevel });
  const pool = createPool({ url: config.databaseUrl, poolSize: Math.min(config.concurrency, 20) });
  const db = createDatabase({ pool });
  const redis = createRedis(config.redisUrl, "worker");
  redis.on("error", (err) => logger.warn({ err: err.message }, "redis connection error"));
  const worker = createWebhookWorker({ ...config, db, sql: pool, redis, logger, keyring: config.webhookKeyring });
  await worker.ready();
  const schedules = await keepScheduled({ redis, logger, schedule: worker.schedule });
  logger.info({ concurrency: config.concurrency, allowPrivateNetworks: config.allowPrivateNetworks }, "webhook worker started");
  return {
    logger,
    stop: async () => {
      schedules.stop();
      await worker.close();
      await Promise.allSettled([db.$disconnect(), pool.end(), redis.quit()]);
    },
  };
}

runProcess("webhook-worker", main);
