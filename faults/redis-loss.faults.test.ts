import { runScenario, sleep } from "./support/scenario";
import { startStack, type Stack } from "./support/stack";

/**
 * Scenario b: Redis killed under load and started again empty (no persistence): every queued and
 * delayed job, every schedule, every lock is gone. Postgres holds everything accepted, and the
 * reconcilers re-create the lost jobs.
 */
describe("fault: Redis restarted with its data lost", () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ name: "redis-loss", chainId: 41_002 });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it("finishes every accepted request, once, after Redis comes back empty", async () => {
    const report = await runScenario(stack, async () => {
      await sleep(4000);
      await stack.redis.restart({ downMs: 3000 });
      return { fault: "redis-server SIGKILLed 4 s into the load, a new empty one 3 s later" };
    });
    expect(report.transactions.accepted).toBeGreaterThan(0);
    expect(report.violations).toEqual([]);
  });
});
