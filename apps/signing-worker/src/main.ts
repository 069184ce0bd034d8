import { loadSigningWorkerConfig } from "@relay/config";
import { createWalletRepository } from "@relay/db";
import { createCustodySigner, custodyNames, newWalletKey, openCustodyBackends } from "@relay/custody";
import { createProducer } from "@relay/queue";
import { runWorkerProcess } from "@relay/worker-process";
import { createSigningWorker, scheduleSigningJobs } from "./worker";

runWorkerProcess("signing-worker", loadSigningWorkerConfig, ({ config, logger, pool, db, redis, metricsRegistry }) => {
  const custody = openCustodyBackends(config.custody);
  const keys = { kek: config.kek, hsm: custody.hsm, kms: custody.kms };
  const worker = createSigningWorker({
    metricsRegistry,
    sql: pool,
    redis,
    signer: createCustodySigner({ ...keys, loadKey: createWalletRepository(db).findWithKey }),
    newWallets: { wallets: createWalletRepository(db), newKey: (backend) => newWalletKey(keys, backend), audit: db },
    logger,
    queuePrefix: config.queuePrefix,
    concurrency: config.concurrency,
    autorun: false,
  });
  const producer = createProducer({ connection: redis, prefix: config.queuePrefix });
  return {
    worker,
    schedule: () => scheduleSigningJobs(producer),
    started: { message: "signing worker started", fields: { concurrency: config.concurrency, queuePrefix: config.queuePrefix, custody: custodyNames(custody) } },
    close: async () => {
      await producer.close();
      await custody.close();
    },
  };
});
