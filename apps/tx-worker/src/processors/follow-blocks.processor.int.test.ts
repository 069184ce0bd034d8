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
import { RunAgain, type Job } from "@relay/queue";
import { startAnvil, testDatabaseUrl, testKek, type AnvilInstance } from "@relay/testing";
import { createChainDirectory } from "../chain-directory";
import { createBlockFollower } from "../lifecycle/block-follower";
import type { StepDeps } from "../lifecycle/deps";
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
    await anvil?.stop();
    await db?.$disconnect();
    if (pool && !pool.ended) await pool.end();
  });

  it("success: follows the chain's blocks, then runs again a quarter of the chain's block time later", async () => {
    const process = createFollowBlocksProcessor(deps, createBlockFollower());
    const result = await process({ v: 1, chainId: CHAIN.toString() }, context);
    expect(result).toBeInstanceOf(RunAgain);
    expect((result as RunAgain).delayMs).toBe(100);
  });

  it("retryable failure: a chain whose RPC does not answer throws an error a retry can heal", async () => {
    const process = createFollowBlocksProcessor(deps, createBlockFollower());
    const error = await process({ v: 1, chainId: CHAIN_DOWN.toString() }, context).then(
      () => null,
      (e: unknown) => toError(e),
    );
    expect(error).not.toBeNull();
    expect(isAppError(error) && !error.retryable).toBe(false);
  });

  it("permanent: a chain that is not configured ends its follower's job", async () => {
    const process = createFollowBlocksProcessor(deps, createBlockFollower());
    expect(await process({ v: 1, chainId: "31293" }, context)).toEqual({ status: "no such chain" });
  });
});
