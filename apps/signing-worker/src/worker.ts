import { createSignatureRepository, type Sql } from "@relay/db";
import type { Signer } from "@relay/custody";
import { jobMetrics, type Registry } from "@relay/metrics";
import { createTypedWorker, workerGroup, type Producer, type Redis, type WorkerGroup } from "@relay/queue";
import type { Logger } from "@relay/core";
import { createPersonalSignProcessor } from "./processors/personal-sign.processor";
import { createSweepSignaturesProcessor } from "./processors/sweep-signatures.processor";
import { createCreateWalletProcessor, type CreateWalletDeps } from "./processors/create-wallet.processor";

export interface SigningWorkerDeps {
  sql: Sql;
  redis: Redis;
  signer: Pick<Signer, "signMessage" | "signTypedData">;
  /** Wallet creation for POST /wallet/create (the KEK's side of it); main.ts always gives it. */
  newWallets?: CreateWalletDeps;
  logger: Logger;
  queuePrefix: string;
  concurrency: number;
  /** Job latency is recorded here when given (docs/metrics.md). */
  metricsRegistry?: Registry;
  /** False: no job is taken until `run()` (the app calls it once its start-up is complete). */
  autorun?: boolean;
}

/** Far beyond any gateway's SIGN_TIMEOUT_MS: only requests nobody waits for any more. */
const ABANDONED_AFTER_MS = 10 * 60_000;

/** The signing worker: consumers of the personal-sign queue, of its clean-up schedule and of wallet creation. */
export function createSigningWorker(deps: SigningWorkerDeps): WorkerGroup {
  // Many jobs run at once: their reads and updates share statements (docs/architecture.md).
  const signatures = createSignatureRepository(deps.sql, { coalesce: { maxBatchSize: 100, maxInFlight: 2 } });
  const settings = {
    connection: deps.redis,
    prefix: deps.queuePrefix,
    logger: deps.logger,
    observer: deps.metricsRegistry && jobMetrics(deps.metricsRegistry),
    autorun: deps.autorun,
  };
  const workers = [
    createTypedWorker("personalSign", createPersonalSignProcessor({ signatures, signer: deps.signer }), {
      ...settings,
      concurrency: deps.concurrency,
    }),
    createTypedWorker("sweepSignatures", createSweepSignaturesProcessor({ signatures, abandonedAfterMs: ABANDONED_AFTER_MS }), {
      ...settings,
      concurrency: 1,
    }),
  ];
  if (deps.newWallets) workers.push(createTypedWorker("createWallet", createCreateWalletProcessor(deps.newWallets), { ...settings, concurrency: 4 }));
  for (const worker of workers) worker.on("error", (err) => deps.logger.error({ err }, "signing worker error"));
  return workerGroup(workers);
}

/** Registers the worker's schedules (idempotent, so every replica does it at start). */
export const scheduleSigningJobs = (producer: Pick<Producer, "schedule">) => producer.schedule("sweepSignatures");
