import { runScenario, sleep } from "./support/scenario";
import { startStack, type Stack } from "./support/stack";

/**
 * Scenario: the relay on a Redis Cluster (three masters, three replicas) and the master that holds
 * its queues SIGKILLed under load. Its replica is promoted after `cluster-node-timeout` (5 s here);
 * writes the replica had not yet received are lost with the master, and the reconcilers re-create
 * any job among them from Postgres. A command the client had queued for the lost master can be
 * dropped without an answer, leaving a worker's fetch loop parked; that worker stops itself after
 * 30 s and the stack starts it again, as a supervisor would (the report names each such restart).
 */
describe("fault: the Redis Cluster master of the relay's slot lost, its replica promoted", () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ name: "redis-failover", chainId: 41_011, redisCluster: { nodeTimeoutMs: 5000 } });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it("finishes every accepted request, once, after the failover", async () => {
    const cluster = stack.cluster!;
    const report = await runScenario(stack, async () => {
      await sleep(4000);
      const owner = await cluster.masterOfKey(stack.queuePrefix);
      await cluster.kill(owner);
      await cluster.waitHealthy(30_000);
      return {
        fault: `the master on port ${owner} (the queues' slot) SIGKILLed 4 s into the load; its replica promoted`,
        // A worker left parked by the failover stops itself and is started again (stall-watch.ts).
        get "workers stopped as stalled and started again"() {
          return stack.supervisorRestarts.join(", ") || "none";
        },
      };
    });
    expect(report.transactions.accepted).toBeGreaterThan(0);
    expect(report.violations).toEqual([]);
  });
});
