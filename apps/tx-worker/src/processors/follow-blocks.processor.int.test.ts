import { createLogger, isAppError, toError } from "@relay/core";
import { RunAgain, type Job } from "@relay/queue";
import { addChain, freePort, startAnvil, type AnvilInstance } from "@relay/testing";
import { createBlockFollower } from "../lifecycle/block-follower";
import type { StepDeps } from "../lifecycle/deps";
import { openStepDeps, type StepDepsFixture } from "../lifecycle/step-deps.test-support";
import { createFollowBlocksProcessor } from "./follow-blocks.processor";

const logger = createLogger({ name: "follow-blocks-test", level: "silent" });
const context = { job: {} as Job, logger };

describe("followBlocks processor", () => {
  let fixture: StepDepsFixture;
  let anvil: AnvilInstance;
  let deps: StepDeps;
  const CHAIN = 31_291n;
  const CHAIN_DOWN = 31_292n;

  beforeAll(async () => {
    fixture = await openStepDeps({ rpcTimeoutMs: 2000 });
    deps = fixture.deps;
    anvil = await startAnvil({ chainId: Number(CHAIN) });
    const timings = { blockTimeMs: 400, stuckAfterSeconds: 60 };
    await addChain(fixture.db, anvil, timings);
    await addChain(fixture.db, { chainId: CHAIN_DOWN, rpcUrl: `http://127.0.0.1:${await freePort()}` }, timings);
  });
  afterAll(async () => {
    await anvil?.stop();
    await fixture?.close();
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
