import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";

export interface OrphanReaper {
  /** Stops `child` should the quick start die before it has stopped `child` itself. */
  watch(child: ChildProcess): void;
}

/**
 * Starts the quick start's orphan reaper (orphan-reaper.main.ts): a small process that stops the
 * processes the quick start started (anvil, the apps) if the quick start ends without stopping
 * them, killed with SIGKILL or crashed; they would otherwise hold ports 3000 and 8545 and keep
 * working on the database. It learns of each process through a pipe whose end here the kernel
 * closes when this process dies, which is what tells it to act.
 */
export function startOrphanReaper(): OrphanReaper {
  const reaper = spawn(process.execPath, ["--import", "tsx", join(__dirname, "orphan-reaper.main.ts")], {
    stdio: ["pipe", "ignore", "inherit"],
  });
  const pipe = reaper.stdin;
  // A reaper that failed to start must not take the quick start down with a write error.
  pipe?.on("error", () => undefined);
  reaper.unref();
  const tell = (line: string) => void pipe?.write(`${line}\n`);
  return {
    watch(child) {
      const { pid } = child;
      if (pid === undefined) return; // never started: nothing to stop
      tell(`+${pid}`);
      child.once("exit", () => tell(`-${pid}`));
    },
  };
}
