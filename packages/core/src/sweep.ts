/**
 * Walks a large ordered set one page per call: each call continues after the last row of the one
 * before, and a short page means the end, so the next call starts again from the top. Every row
 * is reached within ceil(rows / limit) + 1 calls, however many rows stay at the front of the set.
 * A reconciler that read only the first page each time could be held for good by rows that are
 * old but fine (a paused wallet's transactions, deliveries waiting for a receiver), and never
 * reach the one that lost its job behind them.
 */
export function createSweep<Row, Key>(options: {
  /** One page of at most `limit` rows, in the set's order, after `after` (from the top when undefined). */
  page: (after: Key | undefined, limit: number) => Promise<Row[]>;
  /** The position of a row in the set's order. */
  keyOf: (row: Row) => Key;
  limit: number;
}): () => Promise<Row[]> {
  let after: Key | undefined;
  return async () => {
    const rows = await options.page(after, options.limit);
    after = rows.length < options.limit ? undefined : options.keyOf(rows[rows.length - 1]!);
    return rows;
  };
}
