import { Wallet } from "ethers";
import { createLogger } from "@relay/core";
import { createWalletNonceRepository } from "@relay/db";
import type { Job } from "@relay/queue";
import { addChain } from "@relay/testing";
import { openStepDeps, type StepDepsFixture } from "../lifecycle/step-deps.test-support";
import { createReconcileNoncesProcessor } from "./reconcile-nonces.processor";

const logger = createLogger({ name: "reconcile-nonces-test", level: "silent" });

describe("reconcileNonces processor", () => {
  // It checks every active wallet counter it finds: a database of its own keeps other tests out.
  let fixture: StepDepsFixture;

  beforeAll(async () => {
    fixture = await openStepDeps({ rpcTimeoutMs: 2000, ownDatabase: true });
  });
  afterAll(async () => {
    await fixture?.close();
  });

  it("goes on from where the last run stopped, so wallets past one run's batch are checked too", async () => {
    const { pool } = fixture;
    // A chain whose node does not answer: each wallet a run reaches is counted unreachable, which
    // shows how many wallets (and which page) the run took.
    await addChain(fixture.db, { chainId: 31_093n, rpcUrl: "http://127.0.0.1:9" }, { blockTimeMs: 1000, stuckAfterSeconds: 30 });
    for (let i = 0; i < 3; i++) await pool.query(`INSERT INTO wallet_nonce (chain_id, address, next) VALUES (31093, $1, 1)`, [Wallet.createRandom().address]);

    const reconcile = createReconcileNoncesProcessor({
      step: fixture.deps,
      walletNonces: createWalletNonceRepository(pool),
      activeWithinMs: 60_000,
      batch: 2,
    });
    const run = async () => ((await reconcile({ v: 1 }, { job: {} as Job, logger })) as { unreachable: number }).unreachable;

    // Two, the one left, then from the top again.
    expect([await run(), await run(), await run()]).toEqual([2, 1, 2]);
  });
});
