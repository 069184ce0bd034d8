import { startChaosRpcProxy, type ChaosRpcProxy } from "./support/chaos-rpc-proxy";
import { runScenario, sleep } from "./support/scenario";
import { startStack, type Stack } from "./support/stack";

/**
 * Scenario d: the workers reach the chain only through a proxy that, while the load runs, answers
 * some calls with errors, never answers others, and loses the answer to some broadcasts the node
 * accepted. A transient RPC fault must never make a transaction INVALID or FAILED, nor send it
 * twice; a lost answer is recovered from the stored signed bytes.
 */
describe("fault: an RPC that errs, stalls and loses answers", () => {
  let stack: Stack;
  let proxy: ChaosRpcProxy;

  beforeAll(async () => {
    stack = await startStack({
      name: "rpc-faults",
      chainId: 41_004,
      // Blocks every second: what queues up behind stalled calls is mined together.
      blockTimeSeconds: 1,
      rpcUrlFor: async (anvilUrl) => {
        proxy = await startChaosRpcProxy(anvilUrl, { error: 0.1, timeout: 0.05, lost: 0.3 });
        return proxy.url;
      },
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await proxy?.close();
  });

  it("confirms every accepted transaction exactly once through a faulty RPC", async () => {
    const report = await runScenario(stack, async (load) => {
      proxy.enabled = true;
      while (!load.done()) await sleep(200);
      await sleep(3000);
      proxy.enabled = false;
      return { fault: "RPC faults injected for the whole load and 3 s after", seed: proxy.seed, injected: { ...proxy.counts } };
    });
    expect(proxy.counts.error + proxy.counts.timeout).toBeGreaterThan(0);
    expect(proxy.counts.lost).toBeGreaterThan(0);
    // Faults of the RPC are transient: every accepted transaction ends on chain.
    expect(report.transactions.byStatus).toEqual({ CONFIRMED: report.transactions.stored });
    expect(report.violations).toEqual([]);
  });
});
