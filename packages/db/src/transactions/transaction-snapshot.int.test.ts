import { randomUUID } from "node:crypto";
import type { Pool } from "pg";
import type { Sql } from "../client";
import { createFixture, newTransaction, transactionTestContext } from "./test-fixtures";
import { createTransactionSnapshots } from "./transaction-snapshot";

const ctx = transactionTestContext();
afterAll(() => ctx.close());

/** The pool, counting the statements sent through it. */
function counting(pool: Pool): Sql & { statements: number } {
  const sql = {
    statements: 0,
    query: ((...args: Parameters<Pool["query"]>) => {
      sql.statements++;
      return (pool.query as (...a: unknown[]) => unknown)(...args);
    }) as Pool["query"],
  };
  return sql;
}

test("a transaction, its history and its attempts are read in one statement: one moment, one round trip", async () => {
  const fixture = await createFixture(ctx.pool);
  const input = newTransaction(fixture);
  await ctx.repository.create(input);
  const hashes = [`0x${randomUUID().replace(/-/g, "")}`, `0x${randomUUID().replace(/-/g, "")}`];
  for (const [i, hash] of hashes.entries()) {
    await ctx.repository.recordAttempt({
      projectId: input.projectId, transactionId: input.id, chainId: fixture.chainId, fromAddress: fixture.wallets[0] as string,
      nonce: 7n, hash, rawTransaction: Uint8Array.from([i]), type: 2, gasLimit: 21_000n, maxFeePerGasWei: 2n ** 70n + BigInt(i), maxPriorityFeePerGasWei: 1n,
    });
  }
  expect(await ctx.repository.move(input.projectId, input.id, { from: "PENDING", to: "SUBMITTED", set: { hash: hashes[0]! }, markBroadcast: hashes[0]! })).toBe(true);
  expect(await ctx.repository.move(input.projectId, input.id, { from: "SUBMITTED", to: "SUBMITTED", reason: "replaced" })).toBe(true);

  const sql = counting(ctx.pool);
  const snapshot = await createTransactionSnapshots(sql)(input.projectId, input.id);
  expect(sql.statements).toBe(1);
  expect(snapshot?.transaction).toMatchObject({ id: input.id, status: "SUBMITTED", hash: hashes[0] });
  expect(snapshot?.history.map((c) => [c.status, c.previousStatus, c.reason])).toEqual([
    ["PENDING", null, null],
    ["SUBMITTED", "PENDING", null],
    ["SUBMITTED", "SUBMITTED", "replaced"],
  ]);
  expect(snapshot?.history.every((c) => typeof c.id === "bigint" && c.createdAt instanceof Date)).toBe(true);
  expect(snapshot?.history.map((c) => c.id)).toEqual([...snapshot!.history.map((c) => c.id)].sort((a, b) => (a < b ? -1 : 1)));
  // Integers past 2^53 come through whole; the signed bytes are not part of the view.
  expect(snapshot?.attempts).toEqual([
    { hash: hashes[0], nonce: 7n, type: 2, gasLimit: 21_000n, maxFeePerGasWei: 2n ** 70n, maxPriorityFeePerGasWei: 1n, gasPriceWei: null, createdAt: expect.any(Date), broadcastAt: expect.any(Date), cancel: false },
    { hash: hashes[1], nonce: 7n, type: 2, gasLimit: 21_000n, maxFeePerGasWei: 2n ** 70n + 1n, maxPriorityFeePerGasWei: 1n, gasPriceWei: null, createdAt: expect.any(Date), broadcastAt: null, cancel: false },
  ]);
});

test("a transaction without attempts has an empty list; an unknown one, or one of another project, is null", async () => {
  const fixture = await createFixture(ctx.pool);
  const other = await createFixture(ctx.pool);
  const input = newTransaction(fixture);
  await ctx.repository.create(input);
  const read = createTransactionSnapshots(ctx.pool);
  expect((await read(fixture.projectId, input.id))?.attempts).toEqual([]);
  expect(await read(other.projectId, input.id)).toBeNull();
  expect(await read(fixture.projectId, newTransaction(fixture).id)).toBeNull();
});
