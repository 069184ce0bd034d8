import { readFileSync } from "node:fs";
import { cpus } from "node:os";

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU seconds the whole machine spent busy (all processes, all cores), from /proc/stat. */
function busySeconds(): number {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal ...: everything but idle and iowait is busy.
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
  return (user + nice + system + irq + softirq + steal) / TICKS_PER_SECOND;
}

/**
 * How busy the whole machine was during a measurement: on a shared machine, the difference
 * between this and the benchmark's own processes is what others used meanwhile.
 */
export function machineMeter() {
  let before = 0;
  return {
    cores: cpus().length,
    start: () => {
      before = busySeconds();
    },
    /** CPU seconds used by everything since start(). */
    stop: () => busySeconds() - before,
  };
}
