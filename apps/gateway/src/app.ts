import express, { type Express } from "express";
import type { Logger } from "@relay/core";
import {
  createApiKeyRepository,
  createChainRepository,
  createEventCallbackRepository,
  createMetricsRepository,
  createPolicyRepository,
  createProjectRepository,
  createSignatureRepository,
  createSpendGuard,
  createTransactionControl,
  createTransactionRepository,
  createTopUpRepository,
  createTransactionReads,
  createTransactionSnapshots,
  createTransactionList,
  createTransactionEvents,
  createProjectActivity,
  createWalletRepository,
  createWebhookDeliveryRepository,
  type Database,
  type Sql,
  type SqlPool,
} from "@relay/db";
import { createMetricsRegistry, type Registry } from "@relay/metrics";
import { wakeJob, type Producer, type Redis, type ResultWaiter } from "@relay/queue";
import { authenticate } from "./middleware/auth";
import { httpMetrics } from "./middleware/http-metrics";
import { underAreas } from "./middleware/under-areas";
import { requestLog } from "./middleware/request-log";
import { registerSharedStateMetrics } from "./metrics/shared-state.metrics";
import { adminQueuesRoutes } from "./routes/admin-queues.routes";
import { metricsRoutes } from "./routes/metrics.routes";
import { errorHandler, notFound } from "./middleware/errors";
import { jsonBody } from "./middleware/json-body";
import { requireHost } from "./middleware/require-host";
import { rateLimitPerKey } from "./middleware/rate-limit";
import { consoleRoutes } from "./routes/console.routes";
import { docsRoutes } from "./routes/docs.routes";
import { healthRoutes } from "./routes/health.routes";
import { personalSignRoutes } from "./routes/personal-sign.routes";
import { createPersonalSignService } from "./services/personal-sign.service";
import { createSignBatches } from "./services/sign-batches";
import { createSendTransactionService } from "./services/send-transaction.service";
import { sendTransactionInternalError, transactionRoutes } from "./routes/transactions.routes";
import { transactionListRoutes } from "./routes/transaction-list.routes";
import { transactionControlRoutes } from "./routes/transaction-control.routes";
import { transactionEventRoutes } from "./routes/transaction-events.routes";
import { activityRoutes } from "./routes/activity.routes";
import { projectRoutes } from "./routes/projects.routes";
import { eventCallbackRoutes } from "./routes/event-callbacks.routes";
import { eventDeliveryRoutes } from "./routes/event-deliveries.routes";
import { fundingRoutes } from "./syndicate/funding.routes";
import type { Kek } from "@relay/secrets";
import { buildOpenApiDocument } from "./openapi";
import { referenceDocument } from "./reference/reference-document";
import { referenceExamplesFromFile } from "./reference/reference-examples.file";
import { syndicateWalletRoutes } from "./syndicate/wallets.routes";
import { transactionReadRoutes } from "./syndicate/transaction-reads.routes";
import { syndicateSigningRoutes } from "./syndicate/signing.routes";
import { callRoutes } from "./syndicate/call.routes";
import { createChainReader } from "./services/chain-reader";
import { createReplacementRoom } from "./services/replacement-room";
import { createPolicyCache } from "./services/policy-cache";
import { createPolicyGate } from "./services/policy-gate";
import { policyRoutes } from "./routes/policy.routes";

export interface GatewayDeps {
  db: Database;
  /** The pool `db` runs on, for hand-written SQL that must be durable (transactions). */
  sql: SqlPool;
  /** Pool for signature records only; may commit asynchronously (docs/architecture.md). */
  signatureSql: Sql;
  redis: Redis;
  producer: Producer;
  signResults: ResultWaiter;
  /** Waits for the signing worker's wallet creations (POST /wallet/create); that route answers 500 without it. */
  walletResults?: Pick<ResultWaiter, "expect">;
  logger: Logger;
  /** The process's metrics registry (main adds Node's process metrics to it); a new one if absent. */
  metrics?: Registry;
  settings: {
    bodyLimitBytes: number;
    signTimeoutMs: number;
    /** How long POST /transact/call waits for the chain's RPC endpoints (default 5 s). */
    callTimeoutMs?: number;
    rateLimitPerMinute: number;
    authCacheTtlMs: number;
    queuePrefix: string;
    trustProxy: boolean | number | string;
    /** The address the gateway listens on (decides whether /metrics may go without a token). */
    host: string;
    env: "development" | "production" | "test";
    /** Seals webhook secrets (never the wallet KEK). */
    webhookKeyring: Kek;
    /** How long a rotated-out webhook secret is still signed with (docs/webhooks.md, "Rotating a secret"). */
    webhookRotationGraceMs: number;
    /** Active event callback registrations a project may have (docs/webhooks.md). */
    maxCallbacksPerProject: number;
    /** Required from scrapes of /metrics when set (docs/metrics.md). */
    metricsToken?: string | undefined;
    /** The queue dashboard at /admin/queues exists only when this is set. */
    adminToken?: string | undefined;
    /** The records /openapi.json's examples name (reference/); unset: built-in values. */
    referenceExamplesFile?: string | undefined;
    /** The console's built files (apps/console/dist); unset or missing: /console answers 503. */
    consoleDir?: string | undefined;
  };
}

/** The HTTP gateway: authenticate, validate, record, enqueue, answer. No keys, no chains. */
export function createApp(deps: GatewayDeps): Express {
  const { db, settings } = deps;
  const app = express();
  app.disable("x-powered-by");
  // No ETags: API answers are not cached, and Express would hash every response body for one.
  app.set("etag", false);
  app.set("trust proxy", settings.trustProxy);
  const registry = deps.metrics ?? createMetricsRegistry({ processMetrics: false });

  app.use(httpMetrics(registry));
  app.use(requestLog(deps.logger));
  app.use(requireHost);
  app.use(jsonBody(settings.bodyLimitBytes));

  // Concurrent personal-sign requests share their INSERTs (docs/architecture.md).
  const signatures = createSignatureRepository(deps.signatureSql, { coalesce: { maxBatchSize: 100, maxInFlight: 2 } });
  app.use(
    underAreas(
      ["/wallet", "/transact", "/webhook", "/funding"],
      authenticate({ apiKeys: createApiKeyRepository(db), cacheTtlMs: settings.authCacheTtlMs, operatorToken: settings.adminToken }),
      rateLimitPerKey({ redis: deps.redis, prefix: settings.queuePrefix, perMinute: settings.rateLimitPerMinute, logger: deps.logger }),
    ),
  );
  const personalSign = createPersonalSignService({
    wallets: createWalletRepository(db),
    signatures,
    batches: createSignBatches({ producer: deps.producer, results: deps.signResults, timeoutMs: settings.signTimeoutMs }),
    timeoutMs: settings.signTimeoutMs,
    logger: deps.logger,
  });
  app.use(personalSignRoutes({ signatures, personalSign }));
  app.use(syndicateSigningRoutes({ signatures, personalSign }));

  app.use(syndicateWalletRoutes(deps));

  // Concurrent sendTransaction requests share their INSERT statement and its commit.
  const transactions = createTransactionRepository({ sql: deps.sql, db, coalesce: { maxBatchSize: 100, maxInFlight: 2 } });
  // Policies are cached like API keys: a change an operator makes applies within authCacheTtlMs.
  const policies = createPolicyRepository(db);
  app.use(
    transactionRoutes({
      logger: deps.logger,
      readTransaction: createTransactionSnapshots(deps.sql),
      transactionExists: async (projectId, id) => (await transactions.findById(projectId, id)) !== null,
      sendTransaction: createSendTransactionService({
        transactions,
        chains: createChainRepository(db),
        wallets: createWalletRepository(db),
        producer: deps.producer,
        logger: deps.logger,
        policies: createPolicyCache({ policies, ttlMs: settings.authCacheTtlMs }),
        policyGate: createPolicyGate({
          transactions,
          spendGuard: createSpendGuard(deps.sql, { coalesce: { maxBatchSize: 100, maxInFlight: 2 } }),
          chains: createChainRepository(db),
          wallets: createWalletRepository(db),
        }),
      }),
    }),
  );
  app.use(policyRoutes({ policies }));

  app.use(transactionListRoutes({ listTransactions: createTransactionList(deps.sql) }));
  app.use(
    transactionControlRoutes({
      logger: deps.logger,
      control: createTransactionControl(deps.sql),
      findById: (projectId, id) => transactions.findById(projectId, id),
      wake: (projectId, transactionId) => wakeJob(deps.producer, "processTransaction", { v: 1, projectId, transactionId }),
      replacementRoom: createReplacementRoom({ attempts: (projectId, id) => transactions.attempts(projectId, id), chains: createChainRepository(db) }),
    }),
  );
  app.use(
    transactionEventRoutes({
      events: createTransactionEvents(deps.sql),
      transactionExists: async (projectId, id) => (await transactions.findById(projectId, id)) !== null,
    }),
  );
  app.use(activityRoutes({ activity: createProjectActivity(deps.sql) }));
  app.use(projectRoutes({ projects: createProjectRepository(db) }));
  app.use(transactionReadRoutes({ reads: createTransactionReads(deps.sql) }));
  app.use(callRoutes({ reader: createChainReader({ chains: createChainRepository(db), timeoutMs: settings.callTimeoutMs ?? 5_000, logger: deps.logger }) }));

  app.use(
    eventCallbackRoutes({
      callbacks: createEventCallbackRepository({ sql: deps.sql, db }),
      keyring: settings.webhookKeyring,
      rotationGraceMs: settings.webhookRotationGraceMs,
      maxPerProject: settings.maxCallbacksPerProject,
      production: settings.env === "production",
    }),
  );

  app.use(
    eventDeliveryRoutes({
      deliveries: createWebhookDeliveryRepository(deps.sql),
      wake: (deliveryId) => wakeJob(deps.producer, "deliverWebhook", { v: 1, deliveryId }),
    }),
  );

  app.use(fundingRoutes({ topUps: createTopUpRepository(deps.sql) }));

  // Operator and documentation routes after the API's: every API request would otherwise pass
  // through their routers first.
  app.use(
    healthRoutes({
      checks: { postgres: () => db.$queryRaw`SELECT 1`, redis: () => deps.redis.ping() },
      // Without Redis, sendTransaction is still taken (stored in Postgres; the tx-worker's
      // reconciler enqueues it once Redis answers): a Redis outage must not take every gateway
      // out of the balancer. Personal signs answer 500 meanwhile.
      optional: ["redis"],
      logger: deps.logger,
    }),
  );
  const examples = referenceExamplesFromFile({ file: settings.referenceExamplesFile, logger: deps.logger });
  app.use(docsRoutes(referenceDocument(buildOpenApiDocument(), examples, settings)));
  app.use(consoleRoutes({ dir: settings.consoleDir }));

  registerSharedStateMetrics({ registry, queue: deps.producer.queue, records: createMetricsRepository(deps.sql), logger: deps.logger });
  app.use(metricsRoutes({ registry, token: settings.metricsToken, production: settings.env === "production", host: settings.host, logger: deps.logger }));
  if (settings.adminToken) app.use(adminQueuesRoutes({ queue: deps.producer.queue, adminToken: settings.adminToken }));

  app.use(notFound);
  app.use("/transact/sendTransaction", sendTransactionInternalError(deps.logger));
  app.use(errorHandler(deps.logger));
  return app;
}
