import { createReceiverBreaker } from "./receiver-breaker";

describe("receiver breaker", () => {
  let now = 1_000_000;
  const breaker = (afterTimeouts = 3, maxTracked?: number) => createReceiverBreaker({ afterTimeouts, openMs: 30_000, timeoutMs: 10_000, maxTracked }, () => now);

  test("opens after the set number of time-outs in a row, for that registration only", () => {
    const b = breaker();
    b.record("a", true);
    b.record("a", true);
    expect(b.admit("a")).toEqual({ send: true });
    b.record("a", true);
    const refused = b.admit("a");
    expect(refused.send).toBe(false);
    expect(!refused.send && refused.message).toMatch(/last 3 attempts to this callback timed out \(no answer within 10000 ms\).*next at .*retried on the schedule/);
    expect(b.admit("b")).toEqual({ send: true });
  });

  test("an answer, or a failure that is not a time-out, in between starts the count again", () => {
    const b = breaker();
    b.record("a", true);
    b.record("a", true);
    b.record("a", false);
    b.record("a", true);
    b.record("a", true);
    expect(b.admit("a")).toEqual({ send: true });
  });

  test("after the open period one probe goes out; others wait for its outcome; an answer closes", () => {
    const b = breaker(1);
    b.record("a", true);
    now += 29_999;
    expect(b.admit("a").send).toBe(false);
    now += 1;
    expect(b.admit("a")).toEqual({ send: true }); // the probe
    expect(b.admit("a").send).toBe(false);
    b.record("a", false);
    expect(b.admit("a")).toEqual({ send: true });
    expect(b.admit("a")).toEqual({ send: true });
  });

  test("a probe that times out opens it again for the whole period", () => {
    const b = breaker(2);
    b.record("a", true);
    b.record("a", true);
    now += 30_000;
    expect(b.admit("a").send).toBe(true);
    now += 10_000;
    b.record("a", true);
    now += 29_999;
    expect(b.admit("a").send).toBe(false);
    now += 1;
    expect(b.admit("a").send).toBe(true);
  });

  test("a probe whose outcome never comes is replaced after the open period", () => {
    const b = breaker(1);
    b.record("a", true);
    now += 30_000;
    expect(b.admit("a").send).toBe(true);
    now += 29_999;
    expect(b.admit("a").send).toBe(false);
    now += 1;
    expect(b.admit("a").send).toBe(true);
  });

  test("a probe is alone until it would have timed out, also when the open period is shorter than the time-out", () => {
    const b = createReceiverBreaker({ afterTimeouts: 1, openMs: 1000, timeoutMs: 10_000 }, () => now);
    b.record("a", true);
    now += 1000;
    expect(b.admit("a").send).toBe(true); // the probe
    now += 9_999;
    expect(b.admit("a").send).toBe(false);
    now += 1;
    expect(b.admit("a").send).toBe(true);
  });

  test("0 turns it off", () => {
    const b = breaker(0);
    for (let i = 0; i < 10; i++) b.record("a", true);
    expect(b.admit("a")).toEqual({ send: true });
  });

  test("tracks at most maxTracked registrations, forgetting the oldest", () => {
    const b = breaker(1, 2);
    b.record("a", true);
    b.record("b", true);
    b.record("c", true);
    expect(b.admit("a")).toEqual({ send: true });
    expect(b.admit("b").send).toBe(false);
    expect(b.admit("c").send).toBe(false);
  });
});
