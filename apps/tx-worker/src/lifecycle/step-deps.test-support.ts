import { createProviders } from "@relay/chain";
import { createLogger } from "@relay/core";
import { createLocalSigner, type Kek } from "@relay/custody";
import {
  createChainRepository,
  createDatabase,
  createNonceFillerRepository,
  createPool,
  createTopUpRepository,
  createTransactionRepository,
  createWalletBalanceRepository,
  createWalletRepository,
  type Database,
  type TransactionRepository,
} from "@relay/db";
import { createTestDatabase, testDatabaseUrl, testKek } from "@relay/testing";
import { createChainDirectory } from "../chain-directory";
import type { StepDeps } from "./deps";

/**
 * Test support: the lifecycle's dependencies (StepDeps) on the run's real database and real RPC
 * providers, for integration tests that drive the steps or processors without a worker. Unlike
 * worker.ts: no wallet cache and no block follower, and a top-up is recorded but not enqueued
 * (no Redis).
 */

export interface StepDepsOptions {
  rpcTimeoutMs: number;
  /** Seals the wallets the signer opens. Default: a fresh one (testKek). */
  kek?: Kek;
  /** A migrated database of the test's own, dropped on close, for a test that reads every row of a table. */
  ownDatabase?: boolean;
  /** The transaction repository, where a test wants another than the plain one on the pool. */
  transactions?: (pool: ReturnType<typeof createPool>, db: Database) => TransactionRepository;
}

export interface StepDepsFixture {
  pool: ReturnType<typeof createPool>;
  db: Database;
  kek: Kek;
  deps: StepDeps;
  close: () => Promise<void>;
}

const logger = createLogger({ name: "step-deps-test", level: "silent" });

export async function openStepDeps(options: StepDepsOptions): Promise<StepDepsFixture> {
  const database = options.ownDatabase ? await createTestDatabase({ migrate: true }) : undefined;
  const pool = createPool({ url: database?.url ?? testDatabaseUrl() });
  const db = createDatabase({ pool });
  const providers = createProviders({ timeoutMs: options.rpcTimeoutMs });
  const kek = options.kek ?? testKek();
  const wallets = createWalletRepository(db);
  const deps: StepDeps = {
    transactions: options.transactions?.(pool, db) ?? createTransactionRepository({ sql: pool, db }),
    fillers: createNonceFillerRepository(pool),
    balances: createWalletBalanceRepository(pool),
    topUps: { ...createTopUpRepository(pool), enqueue: async () => undefined },
    wallets,
    chains: createChainDirectory({ chains: createChainRepository(db), providers, logger }),
    signer: createLocalSigner(kek, { loadKey: wallets.findWithKey }),
    now: Date.now,
  };
  return {
    pool,
    db,
    kek,
    deps,
    close: async () => {
      providers.destroy();
      await db.$disconnect();
      if (!pool.ended) await pool.end();
      await database?.drop();
    },
  };
}
