import { orderWaitMs } from "./order-wait";

describe("orderWaitMs: how long a delivery held back by an older one waits before it looks again", () => {
  const now = 1_000_000;

  it("250 ms while the older one is being tried (its attempt is due or past)", () => {
    expect(orderWaitMs(new Date(now - 5_000), now)).toBe(250);
    expect(orderWaitMs(new Date(now), now)).toBe(250);
    expect(orderWaitMs(null, now)).toBe(250);
  });

  it("until just after the older one's next attempt while it waits for a retry", () => {
    expect(orderWaitMs(new Date(now + 10_000), now)).toBe(10_250);
  });

  it("at most a minute, in case the older one is tried before its time", () => {
    expect(orderWaitMs(new Date(now + 6 * 3_600_000), now)).toBe(60_000);
  });
});
