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
 * backends), looked up again every half second, so processes started meanwhile count too, and
 * so do ones that ended meanwhile (a pool's connection closed mid-run), up to their last reading.
 */
export function cpuMeter(groups: Record<string, number[] | RegExp>) {
  const resolve = (g: number[] | RegExp) => (Array.isArray(g) ? g : pidsNamed(g));
  /** Per group and pid: CPU seconds at start (0 for a pid first seen later) and at the last reading. */
  let readings = new Map<string, Map<number, { from: number; last: number }>>();
  let timer: NodeJS.Timeout | undefined;
  const read = (atStart: boolean) => {
    for (const [name, g] of Object.entries(groups)) {
      const pids = readings.get(name) ?? new Map<number, { from: number; last: number }>();
      readings.set(name, pids);
      for (const pid of resolve(g)) {
        const now = cpuSeconds(pid);
        const known = pids.get(pid);
        if (known) known.last = Math.max(known.last, now);
        else pids.set(pid, { from: atStart ? now : 0, last: now });
      }
    }
  };
  return {
    start: () => {
      readings = new Map();
      read(true);
      clearInterval(timer);
      timer = setInterval(() => read(false), 500);
    },
    stop: (): Record<string, number> => {
      clearInterval(timer);
      read(false);
      const result: Record<string, number> = {};
      for (const name of Object.keys(groups)) {
        result[name] = [...(readings.get(name)?.values() ?? [])].reduce((sum, r) => sum + r.last - r.from, 0);
      }
      return result;
    },
  };
}
