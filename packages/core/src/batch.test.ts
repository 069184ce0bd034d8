import { createBatcher } from "./batch";

/** A `run` that records each batch and answers when told to. */
function controlledRun() {
  const batches: number[][] = [];
  const pending: (() => void)[] = [];
  const run = (keys: readonly number[]) => {
    batches.push([...keys]);
    return new Promise<(number | Error)[]>((resolve) => {
      pending.push(() => resolve(keys.map((k) => (k < 0 ? new Error(`bad ${k}`) : k * 10))));
    });
  };
  const finishNext = async () => {
    pending.shift()?.();
    await new Promise((r) => setImmediate(r));
  };
  return { run, batches, finishNext };
}

const tick = () => new Promise((r) => setImmediate(r));

describe("createBatcher", () => {
  test("calls made while the only slot is busy go out together when it frees, each answered with its own value", async () => {
    const { run, batches, finishNext } = controlledRun();
    const call = createBatcher(run, { maxBatchSize: 100, maxInFlight: 1 });

    const first = call(1);
    await tick();
    const rest = [2, 3, 4, 5].map((k) => call(k));
    await tick();
    expect(batches).toEqual([[1]]); // the others wait for the running statement

    await finishNext();
    expect(batches).toEqual([[1], [2, 3, 4, 5]]);
    await finishNext();
    await expect(first).resolves.toBe(10);
    await expect(Promise.all(rest)).resolves.toEqual([20, 30, 40, 50]);
  });

  test("calls in one tick share a batch; a free slot sends a new batch at once; maxBatchSize splits", async () => {
    const { run, batches, finishNext } = controlledRun();
    const call = createBatcher(run, { maxBatchSize: 2, maxInFlight: 2 });

    const results = [1, 2, 3].map((k) => call(k));
    await tick();
    expect(batches).toEqual([[1, 2], [3]]);
    await finishNext();
    await finishNext();
    await expect(Promise.all(results)).resolves.toEqual([10, 20, 30]);
  });

  test("an Error for one key fails that call only; a rejected run fails its whole batch", async () => {
    const { run, finishNext } = controlledRun();
    const call = createBatcher(run, { maxBatchSize: 10, maxInFlight: 1 });
    const good = expect(call(1)).resolves.toBe(10);
    const bad = expect(call(-1)).rejects.toThrow("bad -1");
    await tick();
    await finishNext();
    await good;
    await bad;

    const failing = createBatcher<number, number>(async () => Promise.reject(new Error("database down")), { maxBatchSize: 10, maxInFlight: 1 });
    await expect(Promise.all([failing(1), failing(2)])).rejects.toThrow("database down");
    // The slot is released after a failure: later calls still run.
    await expect(failing(3)).rejects.toThrow("database down");
  });
});
