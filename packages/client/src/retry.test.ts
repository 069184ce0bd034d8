import { backoffDelay, DEFAULT_RETRY, isRetryable, parseRetryAfter } from "./retry";

describe("parseRetryAfter", () => {
  it("reads delta-seconds as milliseconds", () => {
    expect(parseRetryAfter("7")).toBe(7000);
    expect(parseRetryAfter(" 0 ")).toBe(0);
  });
  it("reads an HTTP date as the time until it, 0 when past", () => {
    const now = Date.parse("Thu, 26 Nov 2026 17:00:00 GMT");
    expect(parseRetryAfter("Thu, 26 Nov 2026 17:00:03 GMT", now)).toBe(3000);
    expect(parseRetryAfter("Thu, 26 Nov 2026 16:59:00 GMT", now)).toBe(0);
  });
  it("is undefined when absent or unreadable", () => {
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter("soon")).toBeUndefined();
  });
});

describe("backoffDelay", () => {
  it("doubles the ceiling each attempt, with full jitter, up to maxDelayMs", () => {
    const options = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000 };
    expect([1, 2, 3, 4, 5].map((a) => backoffDelay(a, options, undefined, () => 1))).toEqual([100, 200, 400, 800, 1000]);
    expect(backoffDelay(3, options, undefined, () => 0.5)).toBe(200);
  });
  it("waits what Retry-After asked for, capped at maxDelayMs", () => {
    const options = { ...DEFAULT_RETRY, maxDelayMs: 5000 };
    expect(backoffDelay(1, options, 3000, () => 0)).toBe(3000);
    expect(backoffDelay(1, options, 60_000)).toBe(5000);
  });
});

describe("isRetryable", () => {
  it("retries 429 always, 503 and no answer only for idempotent calls, nothing else", () => {
    expect(isRetryable(429, false)).toBe(true);
    expect(isRetryable(503, false)).toBe(false);
    expect(isRetryable(0, false)).toBe(false);
    expect(isRetryable(503, true)).toBe(true);
    expect(isRetryable(0, true)).toBe(true);
    for (const status of [400, 401, 403, 404, 409, 422, 500]) expect(isRetryable(status, true)).toBe(false);
  });
});
