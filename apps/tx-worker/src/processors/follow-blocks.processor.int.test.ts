import { randomUUID } from "node:crypto";
import { createLogger, isAppError, toError } from "@relay/core";
import { createRedis, RunAgain, type Job, type Redis } from "@relay/queue";
import { addChain, createProjectFixture, deleteRedisKeys, freePort, startAnvil, testQueuePrefix, type AnvilInstance } from "@relay/testing";
import { createBlockFollower } from "../lifecycle/block-follower";
import type { StepDeps } from "../lifecycle/deps";
import { createFollowerSleep, type FollowerSleep } from "../lifecycle/follower-sleep";
import { openStepDeps, type StepDepsFixture } from "../lifecycle/step-deps.test-support";
import { createFollowBlocksProcessor } from "./follow-blocks.processor";

const logger = createLogger({ name: "follow-blocks-test", level: "silent" });
const context = { job: {} as Job, logger };

describe("followBlocks processor", () => {
  let fixture: StepDepsFixture;
  let anvil: AnvilInstance;
  let deps: StepDeps;
  let redis: Redis;
  let sleep: FollowerSleep;
  const prefix = testQueuePrefix("follow-blocks");
  const asleepKey = (chainId: bigint) => `${prefix}:followBlocks:asleep:${chainId}`;
  const CHAIN = 31_291n;
  const CHAIN_DOWN = 31_292n;

  /** A PENDING transaction on CHAIN, of a new project. */
  const pendingTransaction = async () => {
    const project = await createProjectFixture(fixture.db, fixture.kek, { wallets: 1 });
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
    return { project, created };
  };

  beforeAll(async () => {
    fixture = await openStepDeps({ rpcTimeoutMs: 2000 });
    deps = fixture.deps;
    redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "worker");
    sleep = createFollowerSleep(redis, prefix);
    anvil = await startAnvil({ chainId: Number(CHAIN) });
    const timings = { blockTimeMs: 400, stuckAfterSeconds: 60 };
    await addChain(fixture.db, anvil, timings);
    await addChain(fixture.db, { chainId: CHAIN_DOWN, rpcUrl: `http://127.0.0.1:${await freePort()}` }, timings);
  });
  afterAll(async () => {
    if (redis) {
      await deleteRedisKeys(redis, prefix);
      await redis.quit();
    }
    await anvil?.stop();
    await fixture?.close();
  });

  it("success, nothing in flight: follows the chain's blocks, marks itself asleep and runs again after the quiet interval", async () => {
    const process = createFollowBlocksProcessor(deps, createBlockFollower(), sleep);
    const result = await process({ v: 1, chainId: CHAIN.toString() }, context);
    expect(result).toBeInstanceOf(RunAgain);
    expect((result as RunAgain).delayMs).toBe(30_000);
    expect(await redis.exists(asleepKey(CHAIN))).toBe(1);
  });

  it("success, a transaction SUBMITTED on the chain: stays awake and runs again a quarter of the chain's block time later", async () => {
    const { project, created } = await pendingTransaction();
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

  it("success, a transaction PENDING on the chain (accepted, not broadcast yet): stays awake", async () => {
    const { project, created } = await pendingTransaction();
    try {
      const result = await createFollowBlocksProcessor(deps, createBlockFollower(), sleep)({ v: 1, chainId: CHAIN.toString() }, context);
      expect((result as RunAgain).delayMs).toBe(100);
      expect(await redis.exists(asleepKey(CHAIN))).toBe(0);
    } finally {
      await deps.transactions.move(project.projectId, created.id, { from: "PENDING", to: "FAILED", reason: "test over" });
    }
  });

  it("success, woken while it looked (a transaction's job cleared its mark after the look found nothing): does not sleep", async () => {
    const waking: StepDeps = {
      ...deps,
      transactions: {
        ...deps.transactions,
        anyInFlightOn: async (chainId: bigint) => {
          const found = await deps.transactions.anyInFlightOn(chainId);
          expect(await sleep.clear(chainId)).toBe(true);
          return found;
        },
      },
    };
    const result = await createFollowBlocksProcessor(waking, createBlockFollower(), sleep)({ v: 1, chainId: CHAIN.toString() }, context);
    expect((result as RunAgain).delayMs).toBe(100);
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
