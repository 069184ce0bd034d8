import { createLogger } from "@relay/core";
import { retryInBackground } from "./retry-in-background";

const logger = createLogger({ name: "retry-test", level: "silent" });

describe("retryInBackground", () => {
  it("tries again after each failure until the task succeeds", async () => {
    let calls = 0;
    const task = async () => {
      calls++;
      if (calls < 3) throw new Error("connect ECONNREFUSED");
    };
    await expect(retryInBackground(task, { delaysMs: [1, 1, 1, 1], logger, context: {} })).resolves.toBe(true);
    expect(calls).toBe(3);
  });

  it("gives up after the last delay without throwing", async () => {
    let calls = 0;
    const task = async () => {
      calls++;
      throw new Error("still down");
    };
    await expect(retryInBackground(task, { delaysMs: [1, 1], logger, context: {} })).resolves.toBe(false);
    expect(calls).toBe(2);
  });
});
