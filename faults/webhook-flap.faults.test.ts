import type { ReceiverMode } from "./support/receiver";
import { between, runScenario, sleep } from "./support/scenario";
import { startStack, type Stack } from "./support/stack";

/**
 * Scenario e: the project's webhook receiver flaps while the load runs: up, answering 500, and
 * down (connections refused), in random turns of about a second. Every event still reaches every
 * registration at least once (receivers deduplicate on webhook-id), and every failed attempt is
 * in the stats.
 */
describe("fault: a webhook receiver that flaps", () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ name: "webhook-flap", chainId: 41_005 });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it("delivers every event at least once to a receiver that goes up, down and answers 500", async () => {
    const turns: ReceiverMode[] = [];
    const report = await runScenario(stack, async (load) => {
      const modes: ReceiverMode[] = ["error", "down", "up"];
      // Until the load is over and a few seconds more, so the last events meet the flapping too.
      let doneAt: number | undefined;
      const stopAt = () => (doneAt ??= load.done() ? Date.now() : undefined) !== undefined && Date.now() - doneAt > 4000;
      // The first turn answers 500 until an attempt has met it: random turns alone can miss every
      // delivery on a fast machine (the load's events come in bursts), and then no 500 is tested.
      await stack.receiver.setMode("error");
      turns.push("error");
      for (const deadline = Date.now() + 15_000; stack.receiver.attempts.length === 0 && Date.now() < deadline; ) await sleep(20);
      while (!stopAt()) {
        const mode = modes[between(0, modes.length)]!;
        await stack.receiver.setMode(mode);
        turns.push(mode);
        await sleep(between(500, 1500));
      }
      await stack.receiver.setMode("up");
      const count = (m: ReceiverMode) => turns.filter((t) => t === m).length;
      return { fault: `receiver flapped for the whole load and 4 s after: ${count("up")} turns up, ${count("error")} answering 500, ${count("down")} down` };
    });
    const answered = stack.receiver.attempts.map((a) => a.status);
    expect(answered).toContain(500);
    const { rows } = await stack.pool.query<{ failed: number }>(
      `SELECT count(*)::int AS failed FROM event_callback_stat s JOIN event_callback c ON c.id = s.event_callback_id
        WHERE c.project_id = $1 AND s.response_status <> 200`,
      [stack.project.projectId],
    );
    // Failed attempts are recorded: at least the 500s the receiver gave (refused ones count as 0).
    expect(rows[0]!.failed).toBeGreaterThanOrEqual(answered.filter((s) => s === 500).length);
    expect(report.violations).toEqual([]);
  });
});
