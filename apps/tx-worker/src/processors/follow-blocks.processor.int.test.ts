import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createProviders } from "@relay/chain";
import { createLogger, isAppError, toError } from "@relay/core";
import { createLocalSigner } from "@relay/custody";
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
} from "@relay/db";
import { createRedis, RunAgain, type Job, type Redis } from "@relay/queue";
import { createProjectFixture, deleteRedisKeys, startAnvil, testDatabaseUrl, testKek, testQueuePrefix, type AnvilInstance } from "@relay/testing";
import { createChainDirectory } from "../chain-directory";
import { createBlockFollower } from "../lifecycle/block-follower";
import type { StepDeps } from "../lifecycle/deps";
import { createFollowerSleep, type FollowerSleep } from "../lifecycle/follower-sleep";
import { createFollowBlocksProcessor } from "./follow-blocks.processor";

const logger = createLogger({ name: "follow-blocks-test", level: "silent" });
const context = { job: {} as Job, logger };

/** A port nothing listens on (taken from the OS, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("followBlocks processor", () => {
  let pool: ReturnType<typeof createPool>;
  let db: Database;
  let anvil: AnvilInstance;
  const providers = createProviders({ timeoutMs: 2000 });
  let deps: StepDeps;
  let redis: Redis;
  const prefix = testQueuePrefix("follow-blocks");
  let sleep: FollowerSleep;
  const asleepKey = (chainId: bigint) => `${prefix}:followBlocks:asleep:${chainId}`;
  const CHAIN = 31_291n;
  const CHAIN_DOWN = 31_292n;

  const addChain = (chainId: bigint, rpcUrl: string) =>
    createChainRepository(db).upsert({ chainId, name: `follow test ${chainId}`, rpcUrls: [rpcUrl], confirmations: 1, lowBalanceThresholdWei: 0n, blockTimeMs: 400, stuckAfterSeconds: 60 });

  beforeAll(async () => {
    pool = createPool({ url: testDatabaseUrl() });
    db = createDatabase({ pool });
    anvil = await startAnvil({ chainId: Number(CHAIN) });
    await addChain(CHAIN, anvil.rpcUrl);
    await addChain(CHAIN_DOWN, `http://127.0.0.1:${await closedPort()}`);
    redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "worker");
    sleep = createFollowerSleep(redis, prefix);
    const wallets = createWalletRepository(db);
    deps = {
      transactions: createTransactionRepository({ sql: pool, db }),
      fillers: createNonceFillerRepository(pool),
      balances: createWalletBalanceRepository(pool),
      topUps: { ...createTopUpRepository(pool), enqueue: async () => undefined },
      wallets,
      chains: createChainDirectory({ chains: createChainRepository(db), providers, logger }),
      signer: createLocalSigner(testKek(), { loadKey: wallets.findWithKey }),
      now: Date.now,
    };
  });
  afterAll(async () => {
    providers.destroy();
    if (redis) {
      await deleteRedisKeys(redis, prefix);
      await redis.quit();
    }
    await anvil?.stop();
    await db?.$disconnect();
    if (pool && !pool.ended) await pool.end();
  });

  it("success, nothing in flight: follows the chain's blocks, marks itself asleep and runs again after the quiet interval", async () => {
    const process = createFollowBlocksProcessor(deps, createBlockFollower(), sleep);
    const result = await process({ v: 1, chainId: CHAIN.toString() }, context);
    expect(result).toBeInstanceOf(RunAgain);
    expect((result as RunAgain).delayMs).toBe(30_000);
    expect(await redis.exists(asleepKey(CHAIN))).toBe(1);
  });

  it("success, a transaction SUBMITTED on the chain: stays awake and runs again a quarter of the chain's block time later", async () => {
    const project = await createProjectFixture(db, testKek(), { wallets: 1 });
    const created = await deps.transactions.create({
      projectId: project.projectId,
      id: randomUUID(),
      chainId: CHAIN,
      contractAddress: project.wallets[0]!.address,
      functionSignature: "function spend(uint256 n)",
      args: { n: "1" },
      calldata: Buffer.alloc(4),
    });
    if (!created.created) throw new Error("transaction not created");
    const hash = `0x${"ab".repeat(32)}`;
    expect(await deps.transactions.move(project.projectId, created.id, { from: "PENDING", to: "SUBMITTED", set: { hash } })).toBe(true);
    try {
      const process = createFollowBlocksProcessor(deps, createBlockFollower(), sleep);
      const result = await process({ v: 1, chainId: CHAIN.toString() }, context);
      expect(result).toBeInstanceOf(RunAgain);
      expect((result as RunAgain).delayMs).toBe(100);
      expect(await redis.exists(asleepKey(CHAIN))).toBe(0);
    } finally {
      await deps.transactions.move(project.projectId, created.id, { from: "SUBMITTED", to: "FAILED", reason: "test over" });
    }
  });

  it("retryable failure: a chain whose RPC does not answer throws an error a retry can heal", async () => {
    const process = createFollowBlocksProcessor(deps, createBlockFollower(), sleep);
    const error = await process({ v: 1, chainId: CHAIN_DOWN.toString() }, context).then(
      () => null,
      (e: unknown) => toError(e),
    );
    expect(error).not.toBeNull();
    expect(isAppError(error) && !error.retryable).toBe(false);
  });

  it("permanent: a chain that is not configured ends its follower's job", async () => {
    const process = createFollowBlocksProcessor(deps, createBlockFollower(), sleep);
    expect(await process({ v: 1, chainId: "31293" }, context)).toEqual({ status: "no such chain" });
  });
});
