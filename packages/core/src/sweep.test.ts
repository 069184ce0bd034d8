import { createSweep } from "./sweep";

/** Rows 1..n in order; `page` answers like an ordered SQL read with a keyset cursor. */
const rowsUpTo = (n: number) => {
  const rows = Array.from({ length: n }, (_, i) => i + 1);
  const pages: (number | undefined)[] = [];
  const page = async (after: number | undefined, limit: number) => {
    pages.push(after);
    return rows.filter((r) => after === undefined || r > after).slice(0, limit);
  };
  return { rows, page, pages };
};

describe("createSweep", () => {
  test("each call continues after the last row of the one before, and starts again from the top after a short page", async () => {
    const { page, pages } = rowsUpTo(7);
    const next = createSweep({ page, keyOf: (r: number) => r, limit: 3 });
    expect(await next()).toEqual([1, 2, 3]);
    expect(await next()).toEqual([4, 5, 6]);
    expect(await next()).toEqual([7]);
    expect(await next()).toEqual([1, 2, 3]);
    expect(pages).toEqual([undefined, 3, 6, undefined]);
  });

  test("a full last page is followed by an empty one, and then by the top again", async () => {
    const { page } = rowsUpTo(4);
    const next = createSweep({ page, keyOf: (r: number) => r, limit: 2 });
    const seen = [await next(), await next(), await next(), await next()];
    expect(seen).toEqual([[1, 2], [3, 4], [], [1, 2]]);
  });

  test("rows that stay at the front do not hide the ones behind them", async () => {
    const { rows, page } = rowsUpTo(1000);
    const next = createSweep({ page, keyOf: (r: number) => r, limit: 10 });
    const reached = new Set<number>();
    for (let call = 0; call < 101; call++) for (const r of await next()) reached.add(r);
    expect(reached.size).toBe(rows.length);
  });
});
