import { readFileSync, readdirSync } from "node:fs";

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU seconds (user + system) a process has used so far, from /proc. */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

function pidsNamed(pattern: RegExp): number[] {
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        return pattern.test(readFileSync(`/proc/${pid}/cmdline`, "utf8"));
      } catch {
        return false;
      }
    });
}

/**
 * Where the CPU went during a measurement: per named process group, CPU seconds used between
 * `start()` and `stop()`. Groups are process ids or command-line patterns (e.g. all postgres
 * backends), re-resolved at stop so processes started meanwhile count too.
 */
export function cpuMeter(groups: Record<string, number[] | RegExp>) {
  const resolve = (g: number[] | RegExp) => (Array.isArray(g) ? g : pidsNamed(g));
  let before = new Map<number, number>();
  const snapshot = () => {
    const all = new Map<number, number>();
    for (const g of Object.values(groups)) for (const pid of resolve(g)) all.set(pid, cpuSeconds(pid));
    return all;
  };
  return {
    start: () => {
      before = snapshot();
    },
    stop: (): Record<string, number> => {
      const result: Record<string, number> = {};
      for (const [name, g] of Object.entries(groups)) {
        result[name] = resolve(g).reduce((sum, pid) => sum + cpuSeconds(pid) - (before.get(pid) ?? 0), 0);
      }
      return result;
    },
  };
}
