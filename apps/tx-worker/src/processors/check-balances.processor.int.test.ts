import { parseEther } from "ethers";
import { createLogger } from "@relay/core";
import { createChainRepository, createDatabase, createPool, createWalletBalanceRepository, createWalletRepository, type Database } from "@relay/db";
import { createProviders } from "@relay/chain";
import type { Job } from "@relay/queue";
import { addChain, createProjectFixture, createTestDatabase, fund, startAnvil, testKek, type AnvilInstance, type TestDatabase } from "@relay/testing";
import { createChainDirectory } from "../chain-directory";
import { createCheckBalancesProcessor } from "./check-balances.processor";

const logger = createLogger({ name: "check-balances-test", level: "silent" });

describe("checkBalances processor (the scheduled WalletBalanceLow check)", () => {
  let database: TestDatabase;
  let pool: ReturnType<typeof createPool>;
  let db: Database;
  let anvil: AnvilInstance;
  const providers = createProviders({ timeoutMs: 5000 });

  beforeAll(async () => {
    // It checks every wallet on every chain: a database of its own keeps other tests out of it.
    database = await createTestDatabase({ migrate: true });
    pool = createPool({ url: database.url });
    db = createDatabase({ pool });
    anvil = await startAnvil({ chainId: 31_501 });
    await addChain(db, anvil, { lowBalanceThresholdWei: parseEther("50") });
  });
  afterAll(async () => {
    providers.destroy();
    await anvil.stop();
    await db.$disconnect();
    await pool.end().catch(() => undefined);
    await database.drop();
  });

  it("writes one WalletBalanceLow event per wallet that dropped below the threshold, and none while it stays low", async () => {
    const project = await createProjectFixture(db, testKek(), { wallets: 2 });
    const [low, rich] = project.wallets.map((w) => w.address) as [string, string];
    await fund(anvil.rpcUrl, [low], "1");
    await fund(anvil.rpcUrl, [rich], "100");
    const check = createCheckBalancesProcessor({
      chains: createChainRepository(db),
      directory: createChainDirectory({ chains: createChainRepository(db), providers, logger }),
      wallets: createWalletRepository(db),
      step: { balances: createWalletBalanceRepository(pool) },
    });
    const events = async () =>
      (await pool.query<{ payload: { data: { walletAddress: string } } }>(`SELECT payload FROM event WHERE event_type = 'WalletBalanceLow'`)).rows;

    expect(await check({ v: 1 }, { job: {} as Job, logger })).toEqual({ checked: 2 });
    expect((await events()).map((e) => e.payload.data.walletAddress)).toEqual([low]);
    await check({ v: 1 }, { job: {} as Job, logger });
    expect(await events()).toHaveLength(1);

    await fund(anvil.rpcUrl, [low], "100");
    await check({ v: 1 }, { job: {} as Job, logger });
    await fund(anvil.rpcUrl, [low], "2");
    await check({ v: 1 }, { job: {} as Job, logger });
    expect(await events()).toHaveLength(2);
  });
});
