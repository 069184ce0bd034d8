import { loadTxWorkerConfig } from "@relay/config";
import { createPool, createWalletRepository } from "@relay/db";
import { createCustodySigner, custodyNames, openCustodyBackends } from "@relay/custody";
import { runWorkerProcess } from "@relay/worker-process";
import { createTxWorker } from "./worker";

/** Connections of the block followers' own (worker.ts, followSql): one chain's pass uses one or two at a time. */
const FOLLOW_POOL_SIZE = 4;

runWorkerProcess("tx-worker", loadTxWorkerConfig, ({ config, logger, pool, db, redis, metricsRegistry }) => {
  // Every signature (sends, cancels, speed-ups, gap fills, top-ups) goes through this one signer.
  const custody = openCustodyBackends(config.custody);
  const followPool = createPool({
    url: config.databaseUrl,
    poolSize: FOLLOW_POOL_SIZE,
    queryTimeoutMs: config.databaseQueryTimeoutMs,
    pooler: config.databasePooler,
  });
  const worker = createTxWorker({
    metricsRegistry,
    db,
    sql: pool,
    followSql: followPool,
    redis,
    signer: createCustodySigner({ kek: config.kek, hsm: custody.hsm, kms: custody.kms, loadKey: createWalletRepository(db).findWithKey }),
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
      await worker.producer.schedule("sampleQueueDepths");
    },
    started: { message: "tx worker started", fields: { concurrency: config.concurrency, queuePrefix: config.queuePrefix, custody: custodyNames(custody) } },
    close: async () => {
      await followPool.end();
      await custody.close();
    },
  };
});
