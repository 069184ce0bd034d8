import type { Logger } from "@relay/core";
import {
  createEventCallbackRepository,
  createEventDispatchRepository,
  createWebhookDeliveryRepository,
  createWebhookHistoryRepository,
  type Database,
  type SqlPool,
} from "@relay/db";
import { jobMetrics, type Registry } from "@relay/metrics";
import { createProducer, createTypedWorker, workerGroup, type Redis, type WorkerGroup } from "@relay/queue";
import type { Kek } from "@relay/secrets";
import { createSafeHttpClient } from "@relay/webhooks";
import { deliveryAttemptMetrics } from "./delivery-metrics";
import { startDispatcher } from "./dispatcher";
import { createDeliverWebhookProcessor } from "./processors/deliver-webhook.processor";
import { createReconcileDeliveriesProcessor } from "./processors/reconcile-deliveries.processor";
import { createClearRetiredSecretsProcessor } from "./processors/clear-retired-secrets.processor";
import { createPruneWebhookHistoryProcessor } from "./processors/prune-webhook-history.processor";
import { createReceiverBreaker } from "./receiver-breaker";
import { parseSchedule } from "./retry-schedule";

/** Waits for `work`, at most `ms` when given. */
const withinMs = async (work: Promise<void> | undefined, ms: number | undefined): Promise<void> => {
  if (!work || ms === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
};

export interface WebhookWorkerDeps {
  db: Database;
  sql: SqlPool;
  redis: Redis;
  logger: Logger;
  keyring: Kek;
  queuePrefix: string;
  concurrency: number;
  allowPrivateNetworks: boolean;
  retrySchedule: string;
  connectTimeoutMs: number;
  totalTimeoutMs: number;
  /** Receivers that time out: after this many time-outs in a row, a registration gets one attempt every openMs until it answers (default 3 and 30 s). */
  breaker?: { afterTimeouts: number; openMs: number };
  /** DNS servers for callback hosts; the system's when absent or empty. */
  dnsServers?: readonly string[];
  /** Job latency and delivery attempts are recorded here when given (docs/metrics.md). */
  metricsRegistry?: Registry;
  /** How long a delivery job stays locked to a replica that died before another takes it over (BullMQ's lockDuration). */
  jobLockMs?: number;
  /** A PENDING delivery overdue this long is checked for a live job (default one minute). */
  reconcileAfterMs?: number;
  /** How long an event's webhook history is kept after its dispatch; null for ever (default 30 days). */
  historyRetentionMs?: number | null;
  now?: () => number;
  /** False: no job is taken and no event dispatched until `run()` (the app calls it once its start-up is complete). */
  autorun?: boolean;
}

const DEFAULT_HISTORY_RETENTION_MS = 30 * 24 * 3600_000;

const COALESCE = { maxBatchSize: 100, maxInFlight: 2 };

/** The webhook worker: outbox dispatch, deliveries, and their reconciler. */
export function createWebhookWorker(deps: WebhookWorkerDeps): WorkerGroup & { schedule: () => Promise<void> } {
  const now = deps.now ?? Date.now;
  // Many deliveries run at once: their reads and their attempt records share statements (one
  // round trip and one commit per batch), which is what bounds deliveries per second.
  const deliveries = createWebhookDeliveryRepository(deps.sql, { coalesce: COALESCE });
  const producer = createProducer({ connection: deps.redis, prefix: deps.queuePrefix });
  const http = createSafeHttpClient({
    allowPrivateNetworks: deps.allowPrivateNetworks,
    connectTimeoutMs: deps.connectTimeoutMs,
    totalTimeoutMs: deps.totalTimeoutMs,
    dnsServers: deps.dnsServers,
  });
  const settings = {
    connection: deps.redis,
    prefix: deps.queuePrefix,
    logger: deps.logger,
    lockDurationMs: deps.jobLockMs,
    observer: deps.metricsRegistry && jobMetrics(deps.metricsRegistry),
    autorun: deps.autorun,
  };
  const callbacks = createEventCallbackRepository({ sql: deps.sql, db: deps.db });
  const group = workerGroup([
    createTypedWorker(
      "deliverWebhook",
      createDeliverWebhookProcessor({
        deliveries,
        callbacks,
        http,
        keyring: deps.keyring,
        retryScheduleMs: parseSchedule(deps.retrySchedule),
        now,
        breaker: createReceiverBreaker({ afterTimeouts: 3, openMs: 30_000, ...deps.breaker, timeoutMs: deps.totalTimeoutMs }, now),
        onAttempt: deps.metricsRegistry && deliveryAttemptMetrics(deps.metricsRegistry),
      }),
      { ...settings, concurrency: deps.concurrency },
    ),
    createTypedWorker("reconcileDeliveries", createReconcileDeliveriesProcessor({ deliveries, producer, overdueAfterMs: deps.reconcileAfterMs ?? 60_000, now }), {
      ...settings,
      concurrency: 1,
    }),
    createTypedWorker("clearRetiredSecrets", createClearRetiredSecretsProcessor({ callbacks, now }), { ...settings, concurrency: 1 }),
    createTypedWorker(
      "pruneWebhookHistory",
      createPruneWebhookHistoryProcessor({
        history: createWebhookHistoryRepository(deps.sql),
        retentionMs: deps.historyRetentionMs === undefined ? DEFAULT_HISTORY_RETENTION_MS : deps.historyRetentionMs,
        now,
      }),
      { ...settings, concurrency: 1 },
    ),
  ]);
  for (const worker of group.workers) worker.on("error", (err) => deps.logger.error({ err }, "webhook worker error"));
  let dispatcher: ReturnType<typeof startDispatcher> | undefined;
  const run = () => {
    dispatcher ??= startDispatcher({ dispatch: createEventDispatchRepository(deps.sql), producer, logger: deps.logger });
    group.run();
  };
  if (deps.autorun ?? true) run();
  return {
    ...group,
    run,
    schedule: async () => {
      await producer.schedule("reconcileDeliveries");
      await producer.schedule("clearRetiredSecrets");
      await producer.schedule("pruneWebhookHistory");
    },
    // The workers and the dispatcher stop together: the workers take no new delivery from now
    // on, whatever the dispatcher's claim in progress waits for (a frozen Postgres, a Redis that
    // is down). That claim-and-enqueue is given the grace period, then left: its deliveries are in
    // Postgres, and a stop that never returns would leave the jobs in flight locked.
    close: async (options) => {
      const [, closed] = await Promise.all([withinMs(dispatcher?.stop(), options?.graceMs), group.close(options)]);
      await producer.close();
      http.close();
      return closed;
    },
  };
}
