import { randomUUID } from "node:crypto";
import { AppError } from "@relay/core";
import { createFixture, newTransaction, transactionTestContext, type Fixture } from "./test-fixtures";
import { createTransactionRepository } from "./transaction.repository";

const ctx = transactionTestContext();
let fixture: Fixture;

beforeEach(async () => {
  fixture = await createFixture(ctx.pool, 2);
});

afterAll(() => ctx.close());

/**
 * Every property holds whether allocations go out one statement each or coalesced into batches
 * (the tx-worker's way: concurrent jobs share one statement, docs/transactions.md).
 */
describe.each([
  ["one statement per allocation", undefined],
  ["coalesced allocations", { maxBatchSize: 100, maxInFlight: 1 }],
])("%s", (_name, coalesce) => {
  const repository = coalesce ? createTransactionRepository({ sql: ctx.pool, db: ctx.db, coalesce }) : ctx.repository;

  const walletA = () => fixture.wallets[0] as string;
  const walletB = () => fixture.wallets[1] as string;

  async function pendingTransactions(count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const input = newTransaction(fixture);
      await repository.create(input);
      ids.push(input.id);
    }
    return ids;
  }

  const allocate = (transactionId: string, address = walletA(), chainPendingNonce = 0n) =>
    repository.allocateNonce({ projectId: fixture.projectId, transactionId, address, chainPendingNonce });

  async function walletNext(address: string): Promise<bigint | null> {
    const result = await ctx.pool.query<{ next: string }>(`SELECT next::text FROM wallet_nonce WHERE chain_id = $1 AND address = $2`, [
      fixture.chainId.toString(),
      address,
    ]);
    const row = result.rows[0];
    return row ? BigInt(row.next) : null;
  }

  test("50 concurrent allocations for 50 transactions on one wallet hand out nonces 0..49, each once, each bound", async () => {
    const ids = await pendingTransactions(50);

    const bindings = await Promise.all(ids.map((id) => allocate(id)));

    const nonces = bindings.map((b) => b?.nonce).sort((a, b) => Number((a as bigint) - (b as bigint)));
    expect(nonces).toEqual(Array.from({ length: 50 }, (_, i) => BigInt(i)));
    expect(bindings.every((b) => b?.allocated === true && b.fromAddress === walletA())).toBe(true);
    for (const [i, id] of ids.entries()) {
      expect(await repository.findById(fixture.projectId, id)).toMatchObject({ fromAddress: walletA(), nonce: bindings[i]?.nonce });
    }
    expect(await walletNext(walletA())).toBe(50n);
  });

  test("the first allocation starts at the chain's pending nonce; later ones ignore it", async () => {
    const [first, second] = await pendingTransactions(2);

    expect(await allocate(first as string, walletA(), 7n)).toEqual({ fromAddress: walletA(), nonce: 7n, allocated: true });
    expect(await allocate(second as string, walletA(), 0n)).toEqual({ fromAddress: walletA(), nonce: 8n, allocated: true });
  });

  test("is idempotent for a transaction: a retry, even concurrent, gets the same binding and takes no nonce", async () => {
    const [id] = await pendingTransactions(1);

    const first = await allocate(id as string);
    const again = await allocate(id as string);
    const concurrent = await Promise.all(Array.from({ length: 10 }, () => allocate(id as string)));
    // Even asked for the other wallet, the transaction keeps the binding it has.
    const otherWallet = await allocate(id as string, walletB());

    expect(first).toEqual({ fromAddress: walletA(), nonce: 0n, allocated: true });
    for (const binding of [again, ...concurrent, otherWallet]) {
      expect(binding).toEqual({ fromAddress: walletA(), nonce: 0n, allocated: false });
    }
    expect(await walletNext(walletA())).toBe(1n);
    expect(await walletNext(walletB())).toBeNull();
  });

  test("concurrent first allocations of one transaction take exactly one nonce", async () => {
    const [id] = await pendingTransactions(1);

    const bindings = await Promise.all(Array.from({ length: 10 }, () => allocate(id as string)));

    expect(bindings.filter((b) => b?.allocated)).toHaveLength(1);
    expect(new Set(bindings.map((b) => b?.nonce))).toEqual(new Set([0n]));
    expect(await walletNext(walletA())).toBe(1n);
  });

  test("two wallets count independently", async () => {
    const ids = await pendingTransactions(20);

    const bindings = await Promise.all(ids.map((id, i) => allocate(id, i % 2 === 0 ? walletA() : walletB(), i % 2 === 0 ? 0n : 100n)));

    const noncesOf = (address: string) =>
      bindings
        .filter((b) => b?.fromAddress === address)
        .map((b) => b?.nonce as bigint)
        .sort((a, b) => Number(a - b));
    expect(noncesOf(walletA())).toEqual(Array.from({ length: 10 }, (_, i) => BigInt(i)));
    expect(noncesOf(walletB())).toEqual(Array.from({ length: 10 }, (_, i) => 100n + BigInt(i)));
  });

  test("a transaction that is not PENDING, or does not exist, gets no nonce", async () => {
    const [invalid, paused] = await pendingTransactions(2);
    await repository.move(fixture.projectId, invalid as string, { from: "PENDING", to: "INVALID", reason: "reverted" });
    await repository.move(fixture.projectId, paused as string, { from: "PENDING", to: "PAUSED", reason: "no funds" });

    expect(await allocate(invalid as string)).toBeNull();
    expect(await allocate(paused as string)).toBeNull();
    expect(await allocate(randomUUID())).toBeNull();
    expect(await walletNext(walletA())).toBeNull();
  });

  test("a wallet of another project is refused and takes no nonce", async () => {
    const other = await createFixture(ctx.pool, 1);
    const [id] = await pendingTransactions(1);

    const allocation = allocate(id as string, other.wallets[0] as string);

    await expect(allocation).rejects.toBeInstanceOf(AppError);
    await expect(allocation).rejects.toMatchObject({ code: "INTERNAL" });
    expect(await repository.findById(fixture.projectId, id as string)).toMatchObject({ fromAddress: null, nonce: null });
  });

  test("a nonce cannot be bound twice: a counter set back is refused and rolled back, not double-bound", async () => {
    const [first, second] = await pendingTransactions(2);
    await allocate(first as string);
    await ctx.pool.query(`UPDATE wallet_nonce SET next = 0 WHERE chain_id = $1 AND address = $2`, [fixture.chainId.toString(), walletA()]);

    const allocation = allocate(second as string);

    await expect(allocation).rejects.toMatchObject({ code: "INTERNAL", message: expect.stringMatching(/behind a nonce already bound/) });
    expect(await walletNext(walletA())).toBe(0n);
    expect(await repository.findById(fixture.projectId, second as string)).toMatchObject({ fromAddress: null, nonce: null });
    // And the constraint itself, whoever writes the row.
    await expect(
      ctx.pool.query(`UPDATE transaction SET from_address = $3, nonce = 0 WHERE project_id = $1 AND id = $2`, [
        fixture.projectId,
        second,
        walletA(),
      ]),
    ).rejects.toThrow(/transaction_chain_id_from_address_nonce_key/);
  });

  test("a lost counter row restarts past the highest nonce already bound, not at the chain's stale nonce", async () => {
    const [first, second, third] = await pendingTransactions(3);
    await allocate(first as string, walletA(), 5n);
    await allocate(second as string);
    await ctx.pool.query(`DELETE FROM wallet_nonce WHERE chain_id = $1 AND address = $2`, [fixture.chainId.toString(), walletA()]);

    expect(await allocate(third as string, walletA(), 0n)).toEqual({ fromAddress: walletA(), nonce: 7n, allocated: true });
  });

  if (coalesce) {
    test("one batch binds consecutive nonces per wallet, in the order they were asked for", async () => {
      const ids = await pendingTransactions(6);
      const wallets = [walletA(), walletB(), walletA(), walletA(), walletB(), walletA()];
      const bindings = await Promise.all(ids.map((id, i) => allocate(id, wallets[i])));
      expect(bindings.map((b) => [b?.fromAddress, b?.nonce])).toEqual([
        [walletA(), 0n],
        [walletB(), 0n],
        [walletA(), 1n],
        [walletA(), 2n],
        [walletB(), 1n],
        [walletA(), 3n],
      ]);
      expect(await walletNext(walletA())).toBe(4n);
      expect(await walletNext(walletB())).toBe(2n);
    });

    test("in a batch where one wallet's counter is behind, only that wallet's transactions fail", async () => {
      const [first, behind, fine] = await pendingTransactions(3);
      await allocate(first as string, walletA());
      await ctx.pool.query(`UPDATE wallet_nonce SET next = 0 WHERE chain_id = $1 AND address = $2`, [fixture.chainId.toString(), walletA()]);
      const [refused, bound] = await Promise.allSettled([allocate(behind as string, walletA()), allocate(fine as string, walletB())]);
      expect(refused).toMatchObject({ status: "rejected", reason: { code: "INTERNAL" } });
      expect(bound).toMatchObject({ status: "fulfilled", value: { fromAddress: walletB(), nonce: 0n, allocated: true } });
    });
  }
});
