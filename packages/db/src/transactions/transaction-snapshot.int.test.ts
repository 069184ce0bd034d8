import type { Pool, PoolClient } from "pg";
import { createFixture, newTransaction, transactionTestContext } from "./test-fixtures";
import { createTransactionSnapshots } from "./transaction-snapshot";

const ctx = transactionTestContext();
afterAll(() => ctx.close());

/**
 * The pool, but its clients run `between` once, right after their first statement that reads a
 * transaction row: a worker's move landing while a read is under way.
 */
function poolWithMoveBetweenReads(pool: Pool, between: () => Promise<void>): Pick<Pool, "connect"> {
  return {
    connect: (async () => {
      const client = await pool.connect();
      const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
      let done = false;
      const wrapped = async (...args: unknown[]) => {
        const result = await query(...args);
        const text = typeof args[0] === "string" ? args[0] : (args[0] as { text: string }).text;
        if (!done && /FROM unnest.*JOIN transaction t/s.test(text)) {
          done = true;
          await between();
        }
        return result;
      };
      return Object.assign(Object.create(client) as PoolClient, { query: wrapped });
    }) as Pool["connect"],
  };
}

test("a transaction, its history and its attempts are read as of one moment", async () => {
  const fixture = await createFixture(ctx.pool);
  const input = newTransaction(fixture);
  await ctx.repository.create(input);
  const moveToInvalid = async () => {
    expect(await ctx.repository.move(input.projectId, input.id, { from: "PENDING", to: "INVALID", reason: "reverts" })).toBe(true);
  };

  const read = createTransactionSnapshots(poolWithMoveBetweenReads(ctx.pool, moveToInvalid));
  const during = await read(input.projectId, input.id);
  expect(during?.transaction.status).toBe("PENDING");
  expect(during?.history.map((c) => c.status)).toEqual(["PENDING"]);

  const after = await createTransactionSnapshots(ctx.pool)(input.projectId, input.id);
  expect(after?.transaction.status).toBe("INVALID");
  expect(after?.history.map((c) => [c.status, c.previousStatus, c.reason])).toEqual([
    ["PENDING", null, null],
    ["INVALID", "PENDING", "reverts"],
  ]);
  expect(typeof after?.history[0]?.id).toBe("bigint");
  expect(after?.attempts).toEqual([]);
});

test("an unknown transaction, or one of another project, is null", async () => {
  const fixture = await createFixture(ctx.pool);
  const other = await createFixture(ctx.pool);
  const input = newTransaction(fixture);
  await ctx.repository.create(input);
  const read = createTransactionSnapshots(ctx.pool);
  expect(await read(other.projectId, input.id)).toBeNull();
  expect(await read(fixture.projectId, newTransaction(fixture).id)).toBeNull();
});
