import { checkInvariants, printReport, type ScenarioReport } from "./invariants";
import { registerCallback, runLoad, type LoadPlan, type Outcome } from "./load";
import type { Stack } from "./stack";

/** The load every scenario runs: modest, for correctness rather than throughput. */
export const DEFAULT_PLAN: LoadPlan = { transactions: 40, signs: 50, registrations: 2, concurrency: 6, paceMs: 1000 };

/**
 * Registers two callbacks, runs the load while `inject` does its harm, waits for `inject` to
 * report the fault over, then checks and prints the invariants.
 */
export async function runScenario(
  stack: Stack,
  inject: (load: { done: () => boolean }) => Promise<Record<string, unknown> | void>,
  options: { plan?: LoadPlan; settleTimeoutMs?: number } = {},
): Promise<ScenarioReport> {
  const before: Outcome[] = [await registerCallback(stack, "before-0"), await registerCallback(stack, "before-1")];
  if (before.some((o) => o.status !== 200)) throw new Error(`registration before the load failed: ${JSON.stringify(before)}`);
  let finished = false;
  const load = runLoad(stack, options.plan ?? DEFAULT_PLAN).finally(() => (finished = true));
  const notes = (await inject({ done: () => finished })) ?? {};
  const faultEndedAt = Date.now();
  const outcomes = [...before, ...(await load)];
  const report = await checkInvariants(stack, outcomes, { faultEndedAt, settleTimeoutMs: options.settleTimeoutMs ?? 120_000 });
  printReport(report, notes);
  return report;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A whole number of milliseconds in [min, max), from Math.random (the moments are meant to vary). */
export const between = (min: number, max: number) => Math.floor(min + Math.random() * (max - min));
