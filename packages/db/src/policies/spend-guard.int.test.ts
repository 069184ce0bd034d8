import { TRANSACTION_STATUSES } from "@relay/lifecycle";
import { createFixture, newTransaction, transactionTestContext, type TransactionTestContext } from "../transactions/test-fixtures";
import { createSpendGuard } from "./spend-guard";

/**
 * What a wallet's day counts (docs/policies.md, "What counts towards a day"), status by status:
 * value of what moved or may still move it; the receipt's fee for a final transaction, the
 * reservation for an unfinished one; only the last 24 hours, only the wallet's chain.
 */
describe("spend guard: a wallet's last 24 hours", () => {
  let ctx: TransactionTestContext;
  beforeAll(() => {
    ctx = transactionTestContext();
  });
  afterAll(() => ctx.close());

  it("counts value of PENDING, SUBMITTED, PAUSED and CONFIRMED only; fees paid when final, reserved when not", async () => {
    const fixture = await createFixture(ctx.pool, 1);
    const wallet = fixture.wallets[0]!;
    const guard = createSpendGuard(ctx.pool);
    // One transaction per status: value 1 wei × 2^i, reservation 1000, receipt fee 7 (where the status may have one).
    for (const [i, status] of TRANSACTION_STATUSES.entries()) {
      const [created] = await ctx.repository.createMany([{ ...newTransaction(fixture), valueWei: 1n << BigInt(i), gasReservedWei: 1000n, request: { fromAddress: wallet } }]);
      await ctx.pool.query(`UPDATE transaction SET status = $3::"TransactionStatus", receipt_fee_wei = CASE WHEN $3::text IN ('PENDING', 'SUBMITTED', 'PAUSED') THEN NULL ELSE 7 END WHERE project_id = $1 AND id = $2`, [
        fixture.projectId,
        created!.created ? created!.id : "",
        status,
      ]);
    }
    const bit = (s: string) => 1n << BigInt(TRANSACTION_STATUSES.indexOf(s as never));
    const [spend] = await guard.spendOf(fixture.chainId, [wallet]);
    expect(spend!.valueWei).toBe(bit("PENDING") + bit("SUBMITTED") + bit("PAUSED") + bit("CONFIRMED"));
    // Three unfinished reserve 1000 each; six final paid 7 each.
    expect(spend!.gasWei).toBe(3n * 1000n + 6n * 7n);
  });

  it("counts a bound transaction for the wallet that sends it, not the one it asked for, and nothing older than 24 hours", async () => {
    const fixture = await createFixture(ctx.pool, 2);
    const [a, b] = fixture.wallets as [string, string];
    const guard = createSpendGuard(ctx.pool);
    const [bound, old] = await ctx.repository.createMany([
      { ...newTransaction(fixture), valueWei: 5n, request: { fromAddress: a } },
      { ...newTransaction(fixture), valueWei: 100n, request: { fromAddress: a } },
    ]);
    await ctx.pool.query(`UPDATE transaction SET from_address = $3, nonce = 0 WHERE project_id = $1 AND id = $2`, [fixture.projectId, bound!.created && bound!.id, b]);
    await ctx.pool.query(`UPDATE transaction SET created_at = now() - interval '24 hours 1 second' WHERE project_id = $1 AND id = $2`, [fixture.projectId, old!.created && old!.id]);
    expect(await guard.spendOf(fixture.chainId, [a, b])).toEqual([
      { address: a, valueWei: 0n, gasWei: 0n },
      { address: b, valueWei: 5n, gasWei: 0n },
    ]);
    expect(await guard.spendOf(fixture.chainId + 1n, [b])).toEqual([{ address: b, valueWei: 0n, gasWei: 0n }]);
  });

  it("a refusal writes nothing; an acceptance inserts the transaction bound to the chosen wallet", async () => {
    const fixture = await createFixture(ctx.pool, 2);
    const guard = createSpendGuard(ctx.pool);
    const refused = await guard.createWithinLimits(newTransaction(fixture), fixture.wallets, () => ({ refused: "no" }));
    expect(refused).toEqual({ refused: "no" });
    const accepted = await guard.createWithinLimits(newTransaction(fixture), fixture.wallets, (spends) => ({ fromAddress: spends[1]!.address }));
    expect(accepted).toMatchObject({ created: true, fromAddress: fixture.wallets[1] });
    const { rows } = await ctx.pool.query(`SELECT requested_from_address AS a FROM transaction WHERE project_id = $1`, [fixture.projectId]);
    expect(rows).toEqual([{ a: fixture.wallets[1] }]);
  });

  it("coalesced: sends of one batch see what the sends before them took, so 50 at once against room for 10 store exactly 10", async () => {
    const fixture = await createFixture(ctx.pool, 2);
    const guard = createSpendGuard(ctx.pool, { coalesce: { maxBatchSize: 100, maxInFlight: 2 } });
    const limit = 5n * 10n; // 10 sends of 5 wei over two wallets: 5 on each
    const decide = (spends: { address: string; valueWei: bigint }[]) => {
      const room = spends.filter((s) => s.valueWei + 5n <= limit / 2n).sort((x, y) => (x.valueWei < y.valueWei ? -1 : 1));
      return room[0] ? { fromAddress: room[0].address } : { refused: "over" };
    };
    const results = await Promise.all(Array.from({ length: 50 }, () => guard.createWithinLimits({ ...newTransaction(fixture), valueWei: 5n }, fixture.wallets, decide)));
    expect(results.filter((r) => "created" in r && r.created)).toHaveLength(10);
    expect(results.filter((r) => "refused" in r)).toHaveLength(40);
    const { rows } = await ctx.pool.query<{ a: string; n: string }>(
      `SELECT requested_from_address AS a, count(*)::text AS n FROM transaction WHERE project_id = $1 GROUP BY 1 ORDER BY 1`,
      [fixture.projectId],
    );
    expect(rows).toEqual([...fixture.wallets].sort().map((a) => ({ a, n: "5" })));
  });

  it("coalesced: a send whose row Postgres refuses fails alone; the others of its batch are stored", async () => {
    const fixture = await createFixture(ctx.pool, 1);
    const guard = createSpendGuard(ctx.pool, { coalesce: { maxBatchSize: 100, maxInFlight: 1 } });
    const pick = (spends: { address: string }[]) => ({ fromAddress: spends[0]!.address });
    const results = await Promise.allSettled([
      guard.createWithinLimits(newTransaction(fixture), fixture.wallets, pick),
      guard.createWithinLimits({ ...newTransaction(fixture), valueWei: 10n ** 80n }, fixture.wallets, pick), // beyond numeric(78, 0)
      guard.createWithinLimits(newTransaction(fixture), fixture.wallets, pick),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    const { rows } = await ctx.pool.query(`SELECT count(*)::int AS n FROM transaction WHERE project_id = $1`, [fixture.projectId]);
    expect(rows).toEqual([{ n: 2 }]);
  });
});
