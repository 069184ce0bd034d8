import { nextRest } from "./dispatch-rest";

const settings = { idleMs: 250, quietMs: 1_000 };

describe("the outbox dispatcher's rest between claims", () => {
  it("goes on at once after a full batch", () => {
    expect(nextRest(1_000, { full: true, any: true }, settings)).toBe(0);
  });

  it("rests the idle time after a claim that found events, whatever it rested before", () => {
    expect(nextRest(1_000, { full: false, any: true }, settings)).toBe(250);
    expect(nextRest(0, { full: false, any: true }, settings)).toBe(250);
  });

  it("doubles its rest after each empty claim, from the idle time up to the quiet time", () => {
    const rests: number[] = [];
    let rest = 0;
    for (let i = 0; i < 5; i++) rests.push((rest = nextRest(rest, { full: false, any: false }, settings)));
    expect(rests).toEqual([250, 500, 1_000, 1_000, 1_000]);
  });
});
