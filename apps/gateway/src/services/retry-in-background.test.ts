import { Writable } from "node:stream";
import { createLogger } from "@relay/core";
import { createBackgroundRetrier } from "./retry-in-background";

const silent = createLogger({ name: "retry-test", level: "silent" });

/** A logger that keeps its lines, at every level, for counting. */
function recordingLogger() {
  const lines: { level: number; msg: string }[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)) as { level: number; msg: string });
      done();
    },
  });
  return { logger: createLogger({ name: "retry-test", level: "debug", destination }), lines };
}

describe("background retrier", () => {
  it("tries again after each failure until the task succeeds", async () => {
    let calls = 0;
    const task = async () => {
      calls++;
      if (calls < 3) throw new Error("connect ECONNREFUSED");
    };
    const retrier = createBackgroundRetrier({ delaysMs: [1, 1, 1, 1], logger: silent });
    await expect(retrier.retry(task, {})).resolves.toBe(true);
    expect(calls).toBe(3);
    expect(retrier.outstanding()).toBe(0);
  });

  it("gives up after the last delay without throwing", async () => {
    let calls = 0;
    const task = async () => {
      calls++;
      throw new Error("still down");
    };
    const retrier = createBackgroundRetrier({ delaysMs: [1, 1], logger: silent });
    await expect(retrier.retry(task, {})).resolves.toBe(false);
    expect(calls).toBe(2);
    expect(retrier.outstanding()).toBe(0);
  });

  it("logs a clean-up's first failure and its outcome above debug level, not every try", async () => {
    const { logger, lines } = recordingLogger();
    const retrier = createBackgroundRetrier({ delaysMs: [1, 1, 1, 1, 1, 1], logger });
    await retrier.retry(async () => Promise.reject(new Error("down")), { signatureId: "s1" });
    const loud = lines.filter((l) => l.level >= 40).map((l) => l.msg);
    expect(loud).toEqual(["background clean-up failed; retrying", "background clean-up gave up; a periodic sweep will remove the record"]);
    expect(lines.filter((l) => l.level === 20)).toHaveLength(5);
  });

  it("leaves clean-ups past its cap to the sweep, saying so once, and takes new ones when one finishes", async () => {
    const { logger, lines } = recordingLogger();
    const retrier = createBackgroundRetrier({ delaysMs: [1, 1], logger, maxOutstanding: 2 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const blocked = [retrier.retry(() => gate, {}), retrier.retry(() => gate, {})];
    expect(retrier.outstanding()).toBe(2);

    let ran = 0;
    const counted = async () => {
      ran++;
    };
    await expect(retrier.retry(counted, { signatureId: "a" })).resolves.toBe(false);
    await expect(retrier.retry(counted, { signatureId: "b" })).resolves.toBe(false);
    expect(ran).toBe(0);
    expect(lines.filter((l) => l.msg.startsWith("too many background clean-ups"))).toHaveLength(1);

    release();
    await expect(Promise.all(blocked)).resolves.toEqual([true, true]);
    expect(retrier.outstanding()).toBe(0);
    await expect(retrier.retry(counted, {})).resolves.toBe(true);
    expect(ran).toBe(1);
  });
});
