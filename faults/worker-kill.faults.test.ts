import { between, DEFAULT_PLAN, runScenario, sleep } from "./support/scenario";
import { startStack, type Stack, type WorkerKind } from "./support/stack";

/**
 * Scenario a: each worker type SIGKILLed at random moments under load, and started again.
 * A killed tx-worker's jobs come back to the new one (lock expiry); a killed signing-worker
 * costs the requests it held a clean 500; a killed webhook-worker's deliveries are retried.
 * Some of the transactions are cancelled or sped up while it happens.
 */
describe("fault: workers SIGKILLed at random moments", () => {
  let stack: Stack;

  beforeAll(async () => {
    // One wallet and blocks every second, as a chain with block times: the transactions that queue up
    // behind a killed tx-worker are mined together, each on what the ones before it leave.
    stack = await startStack({ name: "worker-kill", chainId: 41_001, blockTimeSeconds: 1, wallets: 1 });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it("finishes every accepted request, once, after kills of each worker type", async () => {
    const kills: string[] = [];
    const report = await runScenario(stack, async (load) => {
      // Round after round of the three kinds in a random order, until the load is over.
      while (!load.done() || kills.length < 3) {
        const round: WorkerKind[] = (["tx", "signing", "webhook"] as const).slice().sort(() => Math.random() - 0.5);
        for (const kind of round) {
          await sleep(between(200, 2000));
          await stack.restartWorker(kind);
          kills.push(kind);
        }
      }
      return { kills: kills.join(", ") };
      // Cancels and speed-ups in the load too: a killed tx-worker may hold one half done.
    }, { plan: { ...DEFAULT_PLAN, cancels: 6, speedUps: 6 } });
    expect(new Set(kills)).toEqual(new Set(["signing", "tx", "webhook"]));
    expect(report.transactions.accepted).toBeGreaterThan(0);
    expect(report.violations).toEqual([]);
  });
});
