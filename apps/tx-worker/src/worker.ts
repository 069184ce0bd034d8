import type { Logger } from "@relay/core";
import type { Signer } from "@relay/custody";
import {
  createChainRepository,
  createNonceFillerRepository,
  createTopUpRepository,
  createWalletBalanceRepository,
  createQueueDepthRepository,
  createTransactionRepository,
  createWalletNonceRepository,
  createWalletRepository,
  type Database,
  type Sql,
} from "@relay/db";
import { createProviders } from "@relay/chain";
import { jobMetrics, type Registry } from "@relay/metrics";
import { createProducer, createTypedWorker, workerGroup, type Producer, type Redis, type WorkerGroup } from "@relay/queue";
import { createChainDirectory } from "./chain-directory";
import { cachedWallets } from "./cached-wallets";

/** How long a project's wallet list is reused: a wallet added with the CLI is used after at most this. */
const WALLETS_TTL_MS = 5_000;
import { createProcessTransactionProcessor } from "./processors/process-transaction.processor";
import { createReconcileProcessor } from "./processors/reconcile.processor";
import { createReconcileNoncesProcessor } from "./processors/reconcile-nonces.processor";
import { createCheckBalancesProcessor } from "./processors/check-balances.processor";
import { createSampleQueueDepthsProcessor } from "./processors/sample-queue-depths.processor";
import { createFollowBlocksProcessor } from "./processors/follow-blocks.processor";
import { createBlockFollower } from "./lifecycle/block-follower";
import { createFollowerSleep } from "./lifecycle/follower-sleep";
import { createFollowerWatch } from "./lifecycle/follower-watch";

/** Chains followed at once by one process (each chain has one follower job, run by one process at a time). */
const FOLLOWED_CHAINS_AT_ONCE = 8;

export interface TxWorkerDeps {
  db: Database;
  sql: Sql;
  /**
   * Connections for the block followers' statements alone (default: `sql`'s): under load the
   * transactions' first runs hold every connection of `sql`, and a follower's settles would wait
   * behind them, adding to each transaction's SUBMITTED → CONFIRMED.
   */
  followSql?: Sql;
  redis: Redis;
  signer: Pick<Signer, "signTransaction">;
  logger: Logger;
  queuePrefix: string;
  concurrency: number;
  rpcTimeoutMs: number;
  /** How long a job stays locked to a replica that died before another takes it over (BullMQ's lockDuration). */
  jobLockMs?: number;
  /** Job latency is recorded here when given (docs/metrics.md). */
  metricsRegistry?: Registry;
  /** An unfinished transaction untouched this long is checked for a live job (default one minute). */
  reconcileAfterMs?: number;
  now?: () => number;
  /** False: no job is taken until `run()` (the app calls it once its start-up is complete). */
  autorun?: boolean;
}

/** The transaction worker: each transaction's job, and the reconciler. */
export function createTxWorker(deps: TxWorkerDeps): WorkerGroup & { producer: Producer } {
  const now = deps.now ?? Date.now;
  const providers = createProviders({
    timeoutMs: deps.rpcTimeoutMs,
    // The host only: an RPC URL's path and query often carry the provider's API key.
    onWrongChain: (host, served, expected) =>
      deps.logger.error({ rpcHost: host, servedChainId: served.toString(), chainId: expected.toString() }, "an RPC URL answers for another chain; it is not used until it answers for this one"),
  });
  // Many jobs run at once: their reads of transactions and attempts share statements.
  const transactions = createTransactionRepository({ sql: deps.sql, db: deps.db, coalesce: { maxBatchSize: 100, maxInFlight: 2 } });
  const producer = createProducer({ connection: deps.redis, prefix: deps.queuePrefix });
  const followerSleep = createFollowerSleep(deps.redis, deps.queuePrefix);
  const stepDeps = {
    transactions,
    fillers: createNonceFillerRepository(deps.sql),
    balances: createWalletBalanceRepository(deps.sql),
    topUps: {
      ...createTopUpRepository(deps.sql),
      enqueue: async (topUp: { projectId: string; id: string }) => {
        await producer.enqueue("processTransaction", { v: 1, projectId: topUp.projectId, transactionId: topUp.id });
      },
    },
    wallets: cachedWallets(createWalletRepository(deps.db), WALLETS_TTL_MS),
    chains: createChainDirectory({ chains: createChainRepository(deps.db), providers, logger: deps.logger }),
    signer: deps.signer,
    now,
    blockFollower: createFollowerWatch({ producer, sleep: followerSleep, now }),
  };
  const followDeps = deps.followSql
    ? { ...stepDeps, transactions: createTransactionRepository({ sql: deps.followSql, db: deps.db, coalesce: { maxBatchSize: 100, maxInFlight: 2 } }) }
    : stepDeps;
  const settings = {
    connection: deps.redis,
    prefix: deps.queuePrefix,
    logger: deps.logger,
    lockDurationMs: deps.jobLockMs,
    observer: deps.metricsRegistry && jobMetrics(deps.metricsRegistry),
    autorun: deps.autorun,
  };
  const group = workerGroup([
    createTypedWorker("processTransaction", createProcessTransactionProcessor(stepDeps), { ...settings, concurrency: deps.concurrency }),
    createTypedWorker("followBlocks", createFollowBlocksProcessor(followDeps, createBlockFollower(), followerSleep), { ...settings, concurrency: FOLLOWED_CHAINS_AT_ONCE }),
    createTypedWorker(
      "checkBalances",
      createCheckBalancesProcessor({ chains: createChainRepository(deps.db), directory: stepDeps.chains, wallets: stepDeps.wallets, step: stepDeps, batch: 1_000 }),
      { ...settings, concurrency: 1 },
    ),
    createTypedWorker("sampleQueueDepths", createSampleQueueDepthsProcessor({ queueDepths: createQueueDepthRepository(deps.sql), now }), { ...settings, concurrency: 1 }),
    createTypedWorker(
      "reconcileTransactions",
      createReconcileProcessor({ transactions, producer, idleAfterMs: deps.reconcileAfterMs ?? 60_000, batch: 500, now }),
      { ...settings, concurrency: 1 },
    ),
    createTypedWorker(
      "reconcileNonces",
      createReconcileNoncesProcessor({ step: stepDeps, walletNonces: createWalletNonceRepository(deps.sql), activeWithinMs: 60 * 60_000, batch: 1_000 }),
      { ...settings, concurrency: 1 },
    ),
  ]);
  for (const worker of group.workers) worker.on("error", (err) => deps.logger.error({ err }, "tx worker error"));
  return {
    ...group,
    producer,
    close: async (options) => {
      const closed = await group.close(options);
      await producer.close();
      providers.destroy();
      return closed;
    },
  };
}
