import { loadWebhookWorkerConfig } from "@relay/config";
import { runWorkerProcess } from "@relay/worker-process";
import { createWebhookWorker } from "./worker";

runWorkerProcess("webhook-worker", loadWebhookWorkerConfig, ({ config, logger, pool, db, redis, metricsRegistry }) => {
  // Dispatch too waits for run(): a start-up that fails leaves nothing locked to this process.
  const worker = createWebhookWorker({ ...config, db, sql: pool, redis, logger, keyring: config.webhookKeyring, metricsRegistry, autorun: false });
  return {
    worker,
    schedule: worker.schedule,
    started: { message: "webhook worker started", fields: { concurrency: config.concurrency, allowPrivateNetworks: config.allowPrivateNetworks } },
  };
});
