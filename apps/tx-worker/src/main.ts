import { loadTxWorkerConfig } from "@relay/config";
import { createWalletRepository } from "@relay/db";
import { createLocalSigner } from "@relay/custody";
import { runWorkerProcess } from "@relay/worker-process";
import { createTxWorker } from "./worker";

runWorkerProcess("tx-worker", loadTxWorkerConfig, ({ config, logger, pool, db, redis, metricsRegistry }) => {
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
  return {
    worker,
    schedule: async () => {
      await worker.producer.schedule("reconcileTransactions");
      await worker.producer.schedule("reconcileNonces");
      await worker.producer.schedule("checkBalances");
    },
    started: { message: "tx worker started", fields: { concurrency: config.concurrency, queuePrefix: config.queuePrefix } },
  };
});
