/**
 * The quick start's orphan reaper (started by orphan-reaper.ts): reads `+<pid>` and `-<pid>` lines
 * on stdin, the processes the quick start started and those that ended since. Its stdin closes
 * when the quick start exits, however it exits (the kernel closes a dead process's pipes, SIGKILL
 * included); it then stops every process still listed, as the quick start would have: SIGTERM,
 * and SIGKILL to any still running after the apps' shutdown bound. After a clean stop the list
 * is empty and it just exits.
 */
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

/** The apps' SHUTDOWN_GRACE_MS (20 s by default) plus 10 s to close, with a margin: as the supervisor. */
const STOP_TIMEOUT_MS = 35_000;
const POLL_MS = 200;

// Ctrl-C reaches the whole process group, this process too, and a supervisor may signal the group:
// the quick start is stopping then, and this process must stay to see it through.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => undefined);

const watched = new Set<number>();

/** Whether `pid` still runs: an ended process not yet reaped by its new parent (a zombie) does not. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    // /proc/<pid>/stat: "pid (comm) state …"; comm may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true; // no procfs (macOS): signal 0 is all there is
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // ended meanwhile
  }
}

async function reap(): Promise<void> {
  const left = [...watched].filter(running);
  if (left.length === 0) return;
  process.stderr.write(`The quick start ended without stopping its processes: stopping ${left.join(", ")}\n`);
  for (const pid of left) signal(pid, "SIGTERM");
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (left.some(running) && Date.now() < deadline) await new Promise((r) => setTimeout(r, POLL_MS));
  for (const pid of left.filter(running)) signal(pid, "SIGKILL");
}

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const pid = Number(line.slice(1));
  if (!Number.isInteger(pid) || pid <= 0) return;
  if (line.startsWith("+")) watched.add(pid);
  else if (line.startsWith("-")) watched.delete(pid);
});
lines.on("close", () => {
  void reap().finally(() => process.exit(0));
});
