import { loadTxWorkerConfig } from "@relay/config";
import { createLogger, toError } from "@relay/core";
import { createDatabase, createPool, createWalletRepository } from "@relay/db";
import { createLocalSigner } from "@relay/custody";
import { createRedis } from "@relay/queue";
import { createTxWorker } from "./worker";

async function main() {
  const config = loadTxWorkerConfig();
  const logger = createLogger({ name: "tx-worker", level: config.logLevel });
  const pool = createPool({ url: config.databaseUrl, poolSize: Math.min(config.concurrency, 20) });
  const db = createDatabase({ pool });
  const redis = createRedis(config.redisUrl, "worker");
  redis.on("error", (err) => logger.warn({ err: err.message }, "redis connection error"));
  const worker = createTxWorker({
    db,
    sql: pool,
    redis,
    signer: createLocalSigner(config.kek, { loadKey: createWalletRepository(db).findWithKey }),
    logger,
    queuePrefix: config.queuePrefix,
    concurrency: config.concurrency,
    rpcTimeoutMs: config.rpcTimeoutMs,
    jobLockMs: config.jobLockMs,
  });
  await worker.ready();
  await worker.producer.schedule("reconcileTransactions");
  logger.info({ concurrency: config.concurrency, queuePrefix: config.queuePrefix }, "tx worker started");

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "stopping: finishing in-flight jobs");
    await worker.close();
    await Promise.allSettled([db.$disconnect(), pool.end(), redis.quit()]);
    logger.info("stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("unhandledRejection", (reason) => logger.error({ err: toError(reason) }, "unhandled rejection"));
}

main().catch((e: unknown) => {
  process.stderr.write(`tx-worker failed to start: ${toError(e).message}\n`);
  process.exit(1);
});
