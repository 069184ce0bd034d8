import { JsonRpcProvider, parseEther, toQuantity } from "ethers";
import { createLogger } from "@relay/core";
import {
  createChainRepository,
  createDatabase,
  createPool,
  createProjectFundingRepository,
  createTopUpRepository,
  createWalletBalanceRepository,
  createWalletRepository,
  createWalletRowsRepository,
  type Database,
  type NewTopUp,
} from "@relay/db";
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
      step: { balances: createWalletBalanceRepository(pool), topUps: { ...createTopUpRepository(pool), enqueue: async () => undefined } },
      batch: 100,
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

  it("tops up a low wallet of a project with managed gas once, from its funding wallet, and the funding wallet's own low balance is its project's event", async () => {
    const operator = await createProjectFixture(db, testKek(), { wallets: 1 });
    const project = await createProjectFixture(db, testKek(), { wallets: 2 });
    const funding = operator.wallets[0]!.address;
    const [low, rich] = project.wallets.map((w) => w.address) as [string, string];
    await fund(anvil.rpcUrl, [low], "3");
    await fund(anvil.rpcUrl, [rich], "100");
    await fund(anvil.rpcUrl, [funding], "10"); // below the threshold too
    await createProjectFundingRepository(db).set({ projectId: project.projectId, chainId: BigInt(anvil.chainId), fundingAddress: funding, targetBalanceWei: parseEther("80") });
    const enqueued: NewTopUp[] = [];
    const check = createCheckBalancesProcessor({
      chains: createChainRepository(db),
      directory: createChainDirectory({ chains: createChainRepository(db), providers, logger }),
      wallets: createWalletRepository(db),
      step: { balances: createWalletBalanceRepository(pool), topUps: { ...createTopUpRepository(pool), enqueue: async (t) => void enqueued.push(t) } },
      batch: 100,
    });
    const topUps = async () =>
      (
        await pool.query<{ projectId: string; fundedProjectId: string; from: string; to: string; value: string; calldata: Buffer; status: string }>(
          `SELECT project_id AS "projectId", funded_project_id AS "fundedProjectId", from_address AS "from", contract_address AS "to",
                  value_wei::text AS value, calldata, status FROM transaction WHERE kind = 'FUNDING' AND funded_project_id = $1`,
          [project.projectId],
        )
      ).rows;

    await check({ v: 1 }, { job: {} as Job, logger });
    // One top-up of the low wallet to the target, a plain transfer of the operator's project; none of the rich one.
    expect(await topUps()).toEqual([
      { projectId: operator.projectId, fundedProjectId: project.projectId, from: funding, to: low, value: parseEther("77").toString(), calldata: Buffer.alloc(0), status: "PENDING" },
    ]);
    expect(enqueued.map((t) => [t.projectId, t.amountWei])).toEqual([[operator.projectId, parseEther("77")]]);
    // The funding wallet's own low balance: WalletBalanceLow of its project (it is topped up by nobody).
    const lowOfOperator = await pool.query(`SELECT 1 FROM event WHERE event_type = 'WalletBalanceLow' AND project_id = $1 AND payload->'data'->>'walletAddress' = $2`, [
      operator.projectId,
      funding,
    ]);
    expect(lowOfOperator.rowCount).toBe(1);

    // Checked again while that top-up is unfinished: no second one.
    await check({ v: 1 }, { job: {} as Job, logger });
    expect(await topUps()).toHaveLength(1);
    expect(enqueued).toHaveLength(1);

    // Once it is mined (say at a block after the balance the next check reads), a balance read
    // before that block does not call for another top-up of the same shortfall.
    const head = 1_000; // any block: what counts is which side of the top-up's block a reading is
    await pool.query(`UPDATE transaction SET status = 'CONFIRMED', block_number = $2 WHERE kind = 'FUNDING' AND funded_project_id = $1`, [project.projectId, head + 5]);
    const topUpRepo = createTopUpRepository(pool);
    expect(await topUpRepo.topUpIfDue(BigInt(anvil.chainId), low, { balanceWei: parseEther("3"), blockNumber: head })).toBeNull();
    // Read at or after it, a balance still short is a new shortfall.
    expect(await topUpRepo.topUpIfDue(BigInt(anvil.chainId), low, { balanceWei: parseEther("3"), blockNumber: head + 5 })).toMatchObject({ amountWei: parseEther("77") });
    // A wallet of a project without managed gas (the operator's funding wallet) is never topped up.
    expect(await topUpRepo.topUpIfDue(BigInt(anvil.chainId), funding, { balanceWei: 0n, blockNumber: head + 5 })).toBeNull();
  });

  it("records each wallet's nonce on the chain beside its balance, mined and pending, as the chain answers it; the wallet list answers it", async () => {
    const project = await createProjectFixture(db, testKek(), { wallets: 2 });
    const [busy, idle] = project.wallets.map((w) => w.address) as [string, string];
    await fund(anvil.rpcUrl, [busy], "10");
    const rpc = new JsonRpcProvider(anvil.rpcUrl, undefined, { staticNetwork: true });
    // Seven sent outside the relay, then one the node holds but has not mined.
    await rpc.send("anvil_setNonce", [busy, toQuantity(7)]);
    await rpc.send("anvil_impersonateAccount", [busy]);
    await rpc.send("evm_setAutomine", [false]);
    try {
      await rpc.send("eth_sendTransaction", [{ from: busy, to: idle, value: toQuantity(1) }]);
      const check = createCheckBalancesProcessor({
        chains: createChainRepository(db),
        directory: createChainDirectory({ chains: createChainRepository(db), providers, logger }),
        wallets: createWalletRepository(db),
        step: { balances: createWalletBalanceRepository(pool), topUps: { ...createTopUpRepository(pool), enqueue: async () => undefined } },
        batch: 10_000,
      });
      await check({ v: 1 }, { job: {} as Job, logger });
      const chain = async (address: string) => [await rpc.getTransactionCount(address, "latest"), await rpc.getTransactionCount(address, "pending")];
      expect(await chain(busy)).toEqual([7, 8]);
      const rows = await createWalletRowsRepository(pool).listByProject(project.projectId, { withData: true });
      const stored = (address: string) => {
        const nonce = rows.find((r) => r.address === address)?.chainNonce;
        return nonce ? [Number(nonce.latest), Number(nonce.pending)] : null;
      };
      expect(stored(busy)).toEqual(await chain(busy));
      expect(stored(idle)).toEqual([0, 0]);
      expect(rows.every((r) => r.chainNonce?.readAt instanceof Date)).toBe(true);
    } finally {
      await rpc.send("evm_setAutomine", [true]);
      await rpc.send("anvil_stopImpersonatingAccount", [busy]);
      rpc.destroy();
    }
  });

  it("checks at most its batch of wallets per run and goes on from where the last run stopped, so every wallet is checked within a few runs", async () => {
    const wallets = createWalletRepository(db);
    const all = await wallets.listAddresses({ limit: 10_000 });
    const batch = Math.ceil(all.length / 2) + 1;
    const check = createCheckBalancesProcessor({
      chains: createChainRepository(db),
      directory: createChainDirectory({ chains: createChainRepository(db), providers, logger }),
      wallets,
      step: { balances: createWalletBalanceRepository(pool), topUps: { ...createTopUpRepository(pool), enqueue: async () => undefined } },
      batch,
    });
    const run = async () => ((await check({ v: 1 }, { job: {} as Job, logger })) as { checked: number }).checked;
    // One chain: a full page, the rest, then from the top again.
    expect([await run(), await run(), await run()]).toEqual([batch, all.length - batch, batch]);
  });
});
