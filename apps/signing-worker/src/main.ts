import { loadSigningWorkerConfig } from "@relay/config";
import { createWalletRepository } from "@relay/db";
import { createLocalSigner, generateWalletKey } from "@relay/custody";
import { createProducer } from "@relay/queue";
import { runWorkerProcess } from "@relay/worker-process";
import { createSigningWorker, scheduleSigningJobs } from "./worker";

runWorkerProcess("signing-worker", loadSigningWorkerConfig, ({ config, logger, pool, db, redis, metricsRegistry }) => {
  const worker = createSigningWorker({
    metricsRegistry,
    sql: pool,
    redis,
    signer: createLocalSigner(config.kek, { loadKey: createWalletRepository(db).findWithKey }),
    newWallets: { wallets: createWalletRepository(db), newKey: () => generateWalletKey(config.kek), audit: db },
    logger,
    queuePrefix: config.queuePrefix,
    concurrency: config.concurrency,
    autorun: false,
  });
  const producer = createProducer({ connection: redis, prefix: config.queuePrefix });
  return {
    worker,
    schedule: () => scheduleSigningJobs(producer),
    started: { message: "signing worker started", fields: { concurrency: config.concurrency, queuePrefix: config.queuePrefix } },
    close: () => producer.close(),
  };
});
