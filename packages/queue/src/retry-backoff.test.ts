import { backoffStrategy, CAPPED_EXPONENTIAL, cappedExponentialDelay, RETRY_DELAY_CAP_MS } from "./retry-backoff";

describe("cappedExponentialDelay", () => {
  it("doubles from the base delay and stops at the cap, however many attempts were made", () => {
    const none = () => 0; // no jitter
    expect([1, 2, 3, 4, 5, 6].map((n) => cappedExponentialDelay(n, 1000, RETRY_DELAY_CAP_MS, none))).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000]);
    expect(cappedExponentialDelay(12, 1000, RETRY_DELAY_CAP_MS, none)).toBe(30_000);
    expect(cappedExponentialDelay(5000, 1000, RETRY_DELAY_CAP_MS, none)).toBe(30_000);
  });

  it("waits up to a fifth less, at random, so jobs that failed together do not retry together", () => {
    expect(cappedExponentialDelay(3, 1000, RETRY_DELAY_CAP_MS, () => 0.5)).toBe(3600);
    expect(cappedExponentialDelay(20, 1000, RETRY_DELAY_CAP_MS, () => 1)).toBe(24_000);
  });
});

describe("backoffStrategy", () => {
  it("takes the base delay from the job's own back-off options", () => {
    const delay = backoffStrategy(2, CAPPED_EXPONENTIAL, undefined, { opts: { backoff: { type: CAPPED_EXPONENTIAL, delay: 300 } } } as never);
    expect(delay).toBeGreaterThan(480);
    expect(delay).toBeLessThanOrEqual(600);
  });

  it("refuses a back-off type it does not define, as BullMQ does", () => {
    expect(() => backoffStrategy(1, "linear")).toThrow(/Unknown backoff strategy linear/);
  });
});
