import { sharedValue, sharedValues } from "./shared-value";

describe("sharedValue", () => {
  test("concurrent callers share one read; the value is reused while young and read again when old", async () => {
    const clock = { now: 0 };
    let reads = 0;
    const value = sharedValue(100, async () => ++reads, () => clock.now);
    expect(await Promise.all([value(), value(), value()])).toEqual([1, 1, 1]);
    clock.now = 99;
    expect(await value()).toBe(1);
    clock.now = 100;
    expect(await value()).toBe(2);
    expect(reads).toBe(2);
  });

  test("a failed read is not kept: the next caller reads again", async () => {
    let reads = 0;
    const value = sharedValue(1000, async () => {
      reads++;
      if (reads === 1) throw new Error("node down");
      return reads;
    });
    await expect(value()).rejects.toThrow("node down");
    expect(await value()).toBe(2);
  });

  test("per key: each key its own value", async () => {
    const values = sharedValues(1000, async (key: string) => `${key}!`);
    expect(await Promise.all([values("a"), values("b"), values("a")])).toEqual(["a!", "b!", "a!"]);
  });
});
