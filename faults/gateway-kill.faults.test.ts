import { testDatabaseUrl } from "@relay/testing";
import { startDelayProxy, type DelayProxy } from "./support/delay-proxy";
import { DEFAULT_PLAN, between, runScenario, sleep } from "./support/scenario";
import { startStack, type Stack } from "./support/stack";

/** How late the gateway hears Postgres' answers: the window in which a kill strands a stored request. */
const ANSWER_DELAY_MS = 300;

/**
 * Scenario f: the gateway SIGKILLed at random moments under load and started again on the same
 * port. Requests in flight get no answer; the client sends each again, unchanged, until it gets
 * one, as the contract's requestId and signatureId are for. A transaction whose first send was
 * stored answers 409 with its own id, and is final and on chain once; one whose job was never
 * enqueued (killed between the commit and the enqueue) is found by the reconciler; a resent sign
 * gets the one signature. No registrations during the load: they have no idempotency key.
 *
 * The gateway reaches Postgres through a proxy that hands it every answer ANSWER_DELAY_MS late,
 * so that kills land between a commit and the gateway knowing of it (otherwise a window of
 * a millisecond, which random kills almost never meet).
 */
describe("fault: the gateway SIGKILLed at random moments", () => {
  let stack: Stack;
  let proxy: DelayProxy;

  beforeAll(async () => {
    const database = new URL(testDatabaseUrl());
    proxy = await startDelayProxy({ host: database.hostname, port: Number(database.port || 5432) }, ANSWER_DELAY_MS);
    stack = await startStack({ name: "gateway-kill", chainId: 41_007, gatewayEnv: { DATABASE_URL: proxy.via(testDatabaseUrl()) } });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await proxy?.close();
  });

  it("loses no request that a client sends again, and does nothing twice", async () => {
    let kills = 0;
    const report = await runScenario(
      stack,
      async (load) => {
        while (!load.done() || kills < 3) {
          await sleep(between(300, 2500));
          await stack.restartGateway();
          kills++;
        }
        return { kills };
      },
      { plan: { ...DEFAULT_PLAN, registrations: 0, retryUnansweredMs: 60_000 } },
    );
    expect(kills).toBeGreaterThanOrEqual(3);
    // The kills met requests: some went unanswered and were sent again, and some of those had
    // been stored by the send the kill cut off.
    expect(report.resent.requests).toBeGreaterThan(0);
    expect(report.resent.conflicts).toBeGreaterThan(0);
    expect(report.transactions.accepted).toBeGreaterThan(0);
    expect(report.violations).toEqual([]);
  });
});
