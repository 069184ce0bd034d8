import type { Logger } from "@relay/core";
import { createEventCallbackRepository, createEventDispatchRepository, createWebhookDeliveryRepository, type Database, type Sql } from "@relay/db";
import { createProducer, createTypedWorker, workerGroup, type Redis, type WorkerGroup } from "@relay/queue";
import type { Kek } from "@relay/secrets";
import { createSafeHttpClient } from "@relay/webhooks";
import { startDispatcher } from "./dispatcher";
import { createDeliverWebhookProcessor } from "./processors/deliver-webhook.processor";
import { createReconcileDeliveriesProcessor } from "./processors/reconcile-deliveries.processor";
import { parseSchedule } from "./retry-schedule";

export interface WebhookWorkerDeps {
  db: Database;
  sql: Sql;
  redis: Redis;
  logger: Logger;
  keyring: Kek;
  queuePrefix: string;
  concurrency: number;
  allowPrivateNetworks: boolean;
  retrySchedule: string;
  connectTimeoutMs: number;
  totalTimeoutMs: number;
  /** How long a delivery stays locked to a replica that died before another takes it over (BullMQ's lockDuration). */
  jobLockMs?: number;
  /** A PENDING delivery overdue this long is checked for a live job (default one minute). */
  reconcileAfterMs?: number;
  now?: () => number;
}

/** The webhook worker: outbox dispatch, deliveries, and their reconciler. */
export function createWebhookWorker(deps: WebhookWorkerDeps): WorkerGroup & { schedule: () => Promise<void> } {
  const now = deps.now ?? Date.now;
  const deliveries = createWebhookDeliveryRepository(deps.sql);
  const producer = createProducer({ connection: deps.redis, prefix: deps.queuePrefix });
  const http = createSafeHttpClient({
    allowPrivateNetworks: deps.allowPrivateNetworks,
    connectTimeoutMs: deps.connectTimeoutMs,
    totalTimeoutMs: deps.totalTimeoutMs,
  });
  const settings = { connection: deps.redis, prefix: deps.queuePrefix, logger: deps.logger, lockDurationMs: deps.jobLockMs };
  const group = workerGroup([
    createTypedWorker(
      "deliverWebhook",
      createDeliverWebhookProcessor({
        deliveries,
        callbacks: createEventCallbackRepository({ sql: deps.sql, db: deps.db }),
        http,
        keyring: deps.keyring,
        retryScheduleMs: parseSchedule(deps.retrySchedule),
        now,
      }),
      { ...settings, concurrency: deps.concurrency },
    ),
    createTypedWorker("reconcileDeliveries", createReconcileDeliveriesProcessor({ deliveries, producer, overdueAfterMs: deps.reconcileAfterMs ?? 60_000, now }), {
      ...settings,
      concurrency: 1,
    }),
  ]);
  for (const worker of group.workers) worker.on("error", (err) => deps.logger.error({ err }, "webhook worker error"));
  const dispatcher = startDispatcher({ dispatch: createEventDispatchRepository(deps.sql), producer, logger: deps.logger });
  return {
    ...group,
    schedule: () => producer.schedule("reconcileDeliveries"),
    close: async () => {
      await dispatcher.stop();
      await group.close();
      await producer.close();
    },
  };
}
