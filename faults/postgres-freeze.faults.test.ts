import { personalSign, sendTransaction, type Outcome } from "./support/load";
import { runPostgres, signalPostgres } from "./support/private-postgres";
import { runScenario, sleep } from "./support/scenario";
import { startStack, type Stack } from "./support/stack";

const FREEZE_MS = 15_000;
const PROBE_MS = 3000;

/**
 * Scenario c, second form: Postgres frozen (SIGSTOP) under load: it accepts connections but
 * answers nothing, like a stalled host or a network black hole, which a stopped server (refusing
 * at once) does not show. Requests on connections the gateway already holds must still get an
 * answer while it is frozen, not wait for it; after the thaw everything finishes.
 */
describe("fault: Postgres frozen under load", () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ name: "postgres-freeze", chainId: 41_006 });
  }, 120_000);
  afterAll(async () => {
    await signalPostgres(runPostgres(), "SIGCONT").catch(() => undefined);
    await stack?.stop();
  });

  it("answers 5xx JSON while Postgres is frozen, and finishes every accepted request after", async () => {
    const probes: Promise<Outcome & { answeredAt: number }>[] = [];
    let thawedAt = 0;
    const report = await runScenario(stack, async () => {
      await sleep(4000);
      const pg = runPostgres();
      await signalPostgres(pg, "SIGSTOP");
      const frozenAt = Date.now();
      let i = 0;
      while (Date.now() - frozenAt < PROBE_MS) {
        for (const probe of [sendTransaction(stack), personalSign(stack, 1000 + i++)]) probes.push(probe.then((o) => ({ ...o, answeredAt: Date.now() })));
        await sleep(500);
      }
      await sleep(FREEZE_MS - (Date.now() - frozenAt));
      thawedAt = Date.now();
      await signalPostgres(pg, "SIGCONT");
      return { fault: `Postgres frozen (SIGSTOP) 4 s into the load for ${FREEZE_MS / 1000} s; probes in its first ${PROBE_MS / 1000} s` };
    });
    const answered = await Promise.all(probes);
    const late = answered.filter((p) => p.answeredAt >= thawedAt).map((p) => `${p.kind} ${p.status} after ${p.ms} ms`);
    process.stdout.write(`   probes while frozen: ${answered.map((p) => `${p.kind} ${p.status} ${p.ms} ms`).join(", ")}\n`);
    // Every probe was answered while Postgres was still frozen: nothing waited for it.
    expect(late).toEqual([]);
    expect(answered.filter((p) => p.status < 500)).toEqual([]);
    expect(report.violations).toEqual([]);
  });
});
