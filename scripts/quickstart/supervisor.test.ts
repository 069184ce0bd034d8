/**
 * The quick start's supervisor restarting real processes: an app whose runs each last as long as
 * a list says (a counter file numbers the runs), so the test decides which runs crash at once and
 * which run well first.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { supervise } from "./supervisor";

/** Exits with code 1 after the `RUN_LIFETIMES_MS` entry of this run (its number read from a counter file). */
const APP = `
const { appendFileSync, readFileSync } = require("node:fs");
const file = process.env.RUN_COUNTER;
let run = 0;
try { run = readFileSync(file, "utf8").length; } catch {}
appendFileSync(file, "x");
const lifetime = Number(process.env.RUN_LIFETIMES_MS.split(",")[run] ?? 600000);
setTimeout(() => process.exit(1), lifetime);
`;

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

describe("supervise", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "relay-supervisor-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("doubles the pause between restarts of a crashing app, and starts again from the first pause once a run has gone well", async () => {
    const entry = path.join(dir, "app.cjs");
    writeFileSync(entry, APP);
    // Runs 1-3 crash at once (start-up only: far below resetAfterMs), run 4 lives past
    // resetAfterMs, run 5 crashes at once again.
    const backoff = { firstMs: 100, maxMs: 60_000, resetAfterMs: 5_000 };
    const lines: string[] = [];
    const apps = supervise(
      [{ name: "flaky", entry, env: { ...process.env, RUN_COUNTER: path.join(dir, "runs"), RUN_LIFETIMES_MS: "0,0,0,6000,0" } }],
      { logDir: path.join(dir, "logs"), say: (line) => lines.push(line), backoff },
    );
    const pauses = () => lines.flatMap((line) => /^\[flaky\] exited \(1\); restarting in ([\d.]+) s/.exec(line)?.[1] ?? []).map(Number);
    try {
      expect(await until(() => pauses().length >= 5, 60_000)).toBe(true);
    } finally {
      await apps.stop();
    }
    // Without the reset the last two would be 0.8 and 1.6 s.
    expect(pauses().slice(0, 5)).toEqual([0.1, 0.2, 0.4, 0.1, 0.2]);
    expect(lines.filter((line) => !line.startsWith("[flaky] exited (1); restarting in "))).toEqual([]);
  }, 90_000);
});
