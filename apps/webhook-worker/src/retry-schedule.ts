/**
 * When to try a delivery again: the n-th failed attempt waits schedule[n-1], with ±20 % jitter so
 * that many deliveries failing together do not come back together. Past the last entry: give up.
 */
export function nextDelayMs(scheduleMs: readonly number[], failedAttempts: number, random: () => number = Math.random): number | null {
  const base = scheduleMs[failedAttempts - 1];
  if (base === undefined) return null;
  return Math.round(base * (0.8 + 0.4 * random()));
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** "5s,30s,2m,1h" → milliseconds; throws naming the bad entry. */
export function parseSchedule(text: string): number[] {
  return text.split(",").map((part) => {
    const match = /^\s*(\d+)(ms|s|m|h)\s*$/.exec(part);
    if (!match) throw new Error(`retry schedule entry "${part}" must look like 500ms, 5s, 2m or 1h`);
    return Number(match[1]) * (UNIT_MS[match[2] as string] as number);
  });
}
