import { personalSign, sendTransaction, type Outcome } from "./support/load";
import { runPostgres, startPostgres, stopPostgres } from "./support/private-postgres";
import { runScenario, sleep } from "./support/scenario";
import { startStack, type Stack } from "./support/stack";

const DOWN_MS = 6000;

/**
 * Scenario c: the (private) Postgres cluster stopped in immediate mode (a crash for every
 * connection) under load, started again a few seconds later. While it is down the gateway answers
 * every request at once with a 5xx JSON `message` and its readiness says why; afterwards every
 * app recovers by itself, and every request accepted before or after finishes.
 */
describe("fault: Postgres restarted under load", () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ name: "postgres-restart", chainId: 41_003 });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it("answers 5xx JSON at once while Postgres is down, and finishes every accepted request after", async () => {
    const probes: (Outcome & { ready?: boolean })[] = [];
    const report = await runScenario(stack, async () => {
      await sleep(4000);
      const pg = runPostgres();
      await stopPostgres(pg, "immediate");
      const until = Date.now() + DOWN_MS;
      let i = 0;
      while (Date.now() < until) {
        probes.push(...(await Promise.all([sendTransaction(stack), personalSign(stack, 1000 + i++), ready(stack)])));
        await sleep(300);
      }
      await startPostgres(pg);
      const statuses: Record<string, number> = {};
      for (const p of probes) statuses[`${p.kind} ${p.status}`] = (statuses[`${p.kind} ${p.status}`] ?? 0) + 1;
      return {
        fault: `Postgres stopped (immediate) 4 s into the load, started ${DOWN_MS / 1000} s later`,
        "answers while down": statuses,
        "slowest answer while down": `${Math.max(...probes.map((p) => p.ms))} ms`,
      };
    });

    // Every request made while Postgres was down got an answer: a 5xx JSON body, with a message
    // except sendTransaction's 500 (the contract gives it no fields), /ready saying what is down.
    const unexpected = probes.filter((p) => p.status < 500 || p.body.notJson !== undefined || (p.kind !== "transaction" && typeof p.body.message !== "string"));
    expect(unexpected).toEqual([]);
    expect(probes.filter((p) => p.kind === "registration").map((p) => p.body.message)).toEqual(
      probes.filter((p) => p.kind === "registration").map(() => expect.stringContaining("postgres")),
    );
    expect(report.transactions.accepted).toBeGreaterThan(0);
    expect(report.violations).toEqual([]);
  });
});

/** GET /ready as an outcome (kind "registration" keeps it out of the transaction and sign checks). */
async function ready(stack: Stack): Promise<Outcome> {
  const started = Date.now();
  try {
    const res = await fetch(`${stack.gatewayUrl}/ready`, { signal: AbortSignal.timeout(30_000) });
    const body = (await res.json()) as Record<string, unknown>;
    return { kind: "registration", id: "ready", status: res.status, body: { ...body, message: JSON.stringify(body.checks) }, ms: Date.now() - started, tries: 1 };
  } catch (e) {
    return { kind: "registration", id: "ready", status: 0, body: { error: String(e) }, ms: Date.now() - started, tries: 1 };
  }
}
