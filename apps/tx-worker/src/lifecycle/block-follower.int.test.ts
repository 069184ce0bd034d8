import { randomUUID } from "node:crypto";
import { JsonRpcProvider, parseEther, toBeHex } from "ethers";
import { encodeCall, parseFunctionSignature } from "@relay/chain";
import { createLogger } from "@relay/core";
import { createTransactionRepository, type Sql, type TransactionRepository } from "@relay/db";
import type { Job } from "@relay/queue";
import { addChain, createProjectFixture, deployRecorder, startAnvil, startRpcInterceptor, type AnvilInstance, type RpcInterceptor } from "@relay/testing";
import { createProcessTransactionProcessor } from "../processors/process-transaction.processor";
import { createBlockFollower } from "./block-follower";
import type { StepDeps } from "./deps";
import { openStepDeps, type StepDepsFixture } from "./step-deps.test-support";

const logger = createLogger({ name: "block-follower-test", level: "silent" });
const context = { job: {} as Job, logger };
const ORDER = parseFunctionSignature("setOrder((uint256 id, address owner, uint8[] flags) order)");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One anvil per test chain, automine off (blocks are mined by the test), behind an RPC proxy that
 * counts the methods the worker asks for and can refuse eth_getBlockReceipts.
 */
interface TestChain {
  chainId: bigint;
  anvil: AnvilInstance;
  rpc: JsonRpcProvider;
  proxy: RpcInterceptor;
  calls: string[];
  recorder: string;
}

describe("block follower", () => {
  let fixture: StepDepsFixture;
  let transactions: TransactionRepository;
  let deps: StepDeps;
  /** Statement names run through the repository, in order. */
  const statements: string[] = [];
  const chains: TestChain[] = [];

  async function startChain(chainId: bigint, options: { confirmations: number; withoutBlockReceipts?: boolean }): Promise<TestChain> {
    const anvil = await startAnvil({ chainId: Number(chainId), extraArgs: ["--gas-limit", "1000000000"] });
    const recorder = await deployRecorder(anvil.rpcUrl);
    recorder.provider.destroy();
    const rpc = new JsonRpcProvider(anvil.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
    await rpc.send("evm_setAutomine", [false]);
    const calls: string[] = [];
    const proxy = await startRpcInterceptor(anvil.rpcUrl, ({ method }) => {
      calls.push(method);
      if (options.withoutBlockReceipts && method === "eth_getBlockReceipts") return { error: { code: -32601, message: "the method eth_getBlockReceipts does not exist/is not available" } };
      return undefined;
    });
    await addChain(fixture.db, { chainId, rpcUrl: proxy.url }, { confirmations: options.confirmations, stuckAfterSeconds: 600 });
    const chain = { chainId, anvil, rpc, proxy, calls, recorder: recorder.address };
    chains.push(chain);
    return chain;
  }

  /** `count` transactions of a project of `wallets` funded wallets, each signed and broadcast by its job's first run: SUBMITTED, in anvil's pool. */
  async function submitted(chain: TestChain, count: number, wallets: number) {
    const project = await createProjectFixture(fixture.db, fixture.kek, { wallets });
    for (const w of project.wallets) await chain.rpc.send("anvil_setBalance", [w.address, toBeHex(parseEther("100"))]);
    const process = createProcessTransactionProcessor(deps);
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const { calldata } = encodeCall(ORDER, { order: { id: i + 1, owner: chain.recorder, flags: [1] } });
      const created = await transactions.create({
        projectId: project.projectId,
        id: randomUUID(),
        chainId: chain.chainId,
        contractAddress: chain.recorder,
        functionSignature: ORDER.format("full"),
        args: { order: { id: String(i + 1), owner: chain.recorder, flags: [1] } },
        calldata: Buffer.from(calldata.slice(2), "hex"),
      });
      if (!created.created) throw new Error("transaction not created");
      ids.push(created.id);
    }
    // Fifty at a time: the wallets' nonces are handed out in order either way.
    for (let i = 0; i < ids.length; i += 50) {
      await Promise.all(ids.slice(i, i + 50).map((transactionId) => process({ v: 1, projectId: project.projectId, transactionId }, context)));
    }
    const statuses = await Promise.all(ids.map(async (id) => (await transactions.findById(project.projectId, id))?.status));
    expect(new Set(statuses)).toEqual(new Set(["SUBMITTED"]));
    return { projectId: project.projectId, ids };
  }

  const statusesOf = async (projectId: string, ids: string[]) => Promise.all(ids.map(async (id) => (await transactions.findById(projectId, id))!));

  /** Passes of the follower (the chain view shares the head for 100 ms: a pass may not see a new block yet) until `done`, at most 50. */
  async function passUntil(follower: ReturnType<typeof createBlockFollower>, chainId: bigint, done: () => Promise<boolean>) {
    for (let i = 0; i < 50; i++) {
      await follower.pass(deps, chainId, logger);
      if (await done()) return;
      await sleep(50);
    }
    throw new Error("the follower never got there");
  }

  beforeAll(async () => {
    fixture = await openStepDeps({
      rpcTimeoutMs: 10_000,
      // The worker's repository (its reads coalesced), counting the statements it runs.
      transactions: (pool, db) => {
        const counted: Sql = {
          query: ((config: unknown, values?: unknown) => {
            if (typeof config === "object" && config !== null && "name" in config) statements.push(String(config.name));
            return pool.query(config as never, values as never);
          }) as Sql["query"],
        };
        return createTransactionRepository({ sql: counted, db, coalesce: { maxBatchSize: 100, maxInFlight: 2 } });
      },
    });
    deps = fixture.deps;
    transactions = deps.transactions;
  });
  afterAll(async () => {
    for (const chain of chains) {
      chain.rpc.destroy();
      await chain.proxy.close();
      await chain.anvil.stop();
    }
    await fixture?.close();
  });

  it("records all 500 of our transactions mined in one block from that block's one read of receipts, matched in one statement", async () => {
    const chain = await startChain(31_281n, { confirmations: 1 });
    const { projectId, ids } = await submitted(chain, 500, 20);
    const follower = createBlockFollower();
    await follower.pass(deps, chain.chainId, logger); // reads the head as it is: none of them mined

    chain.calls.length = 0;
    statements.length = 0;
    await chain.rpc.send("evm_mine", []);
    const block = await chain.rpc.getBlock("latest");
    expect(block?.transactions).toHaveLength(500);
    await passUntil(follower, chain.chainId, async () => (await statusesOf(projectId, ids)).every((tx) => tx.status !== "SUBMITTED"));

    const final = await statusesOf(projectId, ids);
    expect(new Set(final.map((tx) => tx.status))).toEqual(new Set(["CONFIRMED"]));
    expect(new Set(final.map((tx) => tx.blockNumber))).toEqual(new Set([BigInt(block!.number)]));
    expect(chain.calls.filter((m) => m === "eth_getBlockReceipts")).toHaveLength(1);
    expect(chain.calls).not.toContain("eth_getTransactionReceipt");
    expect(statements.filter((s) => s === "attempt.submittedWithAttemptIn")).toHaveLength(1);
  }, 180_000);

  it("sends an attempt a reorganisation dropped back to following, and confirms it where it is mined again", async () => {
    const chain = await startChain(31_282n, { confirmations: 2 });
    const { projectId, ids } = await submitted(chain, 1, 1);
    const [id] = ids as [string];
    const [attempt] = await transactions.attempts(projectId, id);
    const raw = (await chain.rpc.send("eth_getRawTransactionByHash", [attempt!.hash])) as string;
    const follower = createBlockFollower();
    await follower.pass(deps, chain.chainId, logger);

    await chain.rpc.send("evm_mine", []);
    const minedIn = await chain.rpc.getBlockNumber();
    await passUntil(follower, chain.chainId, async () => (await transactions.findById(projectId, id))!.minedBlockNumber !== null);
    expect(await transactions.findById(projectId, id)).toMatchObject({ status: "SUBMITTED", minedHash: attempt!.hash, minedBlockNumber: BigInt(minedIn) });

    // Its block replaced by an empty one; anvil does not put the transaction back in its pool.
    await chain.rpc.send("anvil_reorg", [1, []]);
    expect(await chain.rpc.getTransactionReceipt(attempt!.hash)).toBeNull();
    await chain.rpc.send("evm_mine", []); // its block would have 2 confirmations now
    await passUntil(follower, chain.chainId, async () => (await transactions.findById(projectId, id))!.minedBlockNumber === null);
    expect((await transactions.findById(projectId, id))!.status).toBe("SUBMITTED");

    // The same signed bytes mined again, in a block of the new branch.
    await chain.rpc.send("eth_sendRawTransaction", [raw]);
    await chain.rpc.send("evm_mine", []);
    const minedAgainIn = await chain.rpc.getBlockNumber();
    await chain.rpc.send("evm_mine", []);
    await passUntil(follower, chain.chainId, async () => (await transactions.findById(projectId, id))!.status !== "SUBMITTED");
    expect(await transactions.findById(projectId, id)).toMatchObject({ status: "CONFIRMED", hash: attempt!.hash, blockNumber: BigInt(minedAgainIn) });
  }, 120_000);

  it("follows a node without eth_getBlockReceipts by its blocks' transaction hashes", async () => {
    const chain = await startChain(31_283n, { confirmations: 1, withoutBlockReceipts: true });
    const { projectId, ids } = await submitted(chain, 5, 1);
    const follower = createBlockFollower();
    await follower.pass(deps, chain.chainId, logger);

    chain.calls.length = 0;
    await chain.rpc.send("evm_mine", []);
    const minedIn = BigInt(await chain.rpc.getBlockNumber());
    await passUntil(follower, chain.chainId, async () => (await statusesOf(projectId, ids)).every((tx) => tx.status !== "SUBMITTED"));
    const final = await statusesOf(projectId, ids);
    expect(final.map((tx) => [tx.status, tx.blockNumber])).toEqual(ids.map(() => ["CONFIRMED", minedIn]));
    expect(chain.calls).toContain("eth_getBlockByNumber");
    // Asked once, refused, not asked again.
    expect(chain.calls.filter((m) => m === "eth_getBlockReceipts").length).toBeLessThanOrEqual(1);
  }, 120_000);
});
