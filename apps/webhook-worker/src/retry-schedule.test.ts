import { nextDelayMs, parseSchedule } from "./retry-schedule";

describe("retry schedule", () => {
  it("parses units and refuses nonsense, naming it", () => {
    expect(parseSchedule("500ms, 5s,2m,1h")).toEqual([500, 5000, 120_000, 3_600_000]);
    expect(() => parseSchedule("5s,soon")).toThrow(/"soon"/);
  });

  it("waits the n-th entry with ±20 % jitter, and gives up after the last", () => {
    const schedule = [1000, 10_000];
    expect(nextDelayMs(schedule, 1, () => 0)).toBe(800);
    expect(nextDelayMs(schedule, 1, () => 1)).toBe(1200);
    expect(nextDelayMs(schedule, 2, () => 0.5)).toBe(10_000);
    expect(nextDelayMs(schedule, 3)).toBeNull();
  });
});
