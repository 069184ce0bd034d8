import { Wallet } from "ethers";
import { createLogger } from "@relay/core";
import { createProviders } from "@relay/chain";
import { createLocalSigner } from "@relay/custody";
import {
  createChainRepository,
  createDatabase,
  createNonceFillerRepository,
  createPool,
  createTransactionRepository,
  createTopUpRepository,
  createWalletBalanceRepository,
  createWalletNonceRepository,
  createWalletRepository,
  type Database,
} from "@relay/db";
import type { Job } from "@relay/queue";
import { createTestDatabase, testKek, type TestDatabase } from "@relay/testing";
import { createChainDirectory } from "../chain-directory";
import { createReconcileNoncesProcessor } from "./reconcile-nonces.processor";

const logger = createLogger({ name: "reconcile-nonces-test", level: "silent" });

describe("reconcileNonces processor", () => {
  // It checks every active wallet counter it finds: a database of its own keeps other tests out.
  let database: TestDatabase;
  let pool: ReturnType<typeof createPool>;
  let db: Database;
  const providers = createProviders({ timeoutMs: 2000 });

  beforeAll(async () => {
    database = await createTestDatabase({ migrate: true });
    pool = createPool({ url: database.url });
    db = createDatabase({ pool });
  });
  afterAll(async () => {
    providers.destroy();
    await db.$disconnect();
    await pool.end().catch(() => undefined);
    await database.drop();
  });

  it("goes on from where the last run stopped, so wallets past one run's batch are checked too", async () => {
    // A chain whose node does not answer: each wallet a run reaches is counted unreachable, which
    // shows how many wallets (and which page) the run took.
    await createChainRepository(db).upsert({ chainId: 31_093n, name: "down", rpcUrls: ["http://127.0.0.1:9"], confirmations: 1, lowBalanceThresholdWei: 0n, blockTimeMs: 1000, stuckAfterSeconds: 30 });
    for (let i = 0; i < 3; i++) await pool.query(`INSERT INTO wallet_nonce (chain_id, address, next) VALUES (31093, $1, 1)`, [Wallet.createRandom().address]);

    const wallets = createWalletRepository(db);
    const reconcile = createReconcileNoncesProcessor({
      step: {
        transactions: createTransactionRepository({ sql: pool, db }),
        fillers: createNonceFillerRepository(pool),
        balances: createWalletBalanceRepository(pool),
      topUps: { ...createTopUpRepository(pool), enqueue: async () => undefined },
        wallets,
        chains: createChainDirectory({ chains: createChainRepository(db), providers, logger }),
        signer: createLocalSigner(testKek(), { loadKey: wallets.findWithKey }),
        now: Date.now,
      },
      walletNonces: createWalletNonceRepository(pool),
      activeWithinMs: 60_000,
      batch: 2,
    });
    const run = async () => ((await reconcile({ v: 1 }, { job: {} as Job, logger })) as { unreachable: number }).unreachable;

    // Two, the one left, then from the top again.
    expect([await run(), await run(), await run()]).toEqual([2, 1, 2]);
  });
});
