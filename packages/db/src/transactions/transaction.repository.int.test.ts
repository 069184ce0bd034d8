import { randomUUID } from "node:crypto";
import { AppError } from "@relay/core";
import type { TransactionStatus } from "@relay/lifecycle";
import type { TransactionStatusChangePayload } from "./status-change-event";
import { createFixture, newTransaction, transactionTestContext, type Fixture } from "./test-fixtures";
import { createTransactionRepository } from "./transaction.repository";
import { NO_REQUESTED_FIELDS } from "./transaction-record";
import type { Sql } from "../client";

const ctx = transactionTestContext();
const { repository } = ctx;
let fixture: Fixture;

beforeEach(async () => {
  fixture = await createFixture(ctx.pool);
});

afterAll(() => ctx.close());

interface ChangeRow {
  id: string;
  status: TransactionStatus;
  previousStatus: TransactionStatus | null;
  reason: string | null;
  createdAt: Date;
}
interface EventRow {
  id: string;
  projectId: string;
  eventType: string;
  payload: TransactionStatusChangePayload;
  createdAt: Date;
  dispatchedAt: Date | null;
}

async function changes(projectId: string, id: string): Promise<ChangeRow[]> {
  const result = await ctx.pool.query<ChangeRow>(
    `SELECT id::text, status, previous_status AS "previousStatus", reason, created_at AS "createdAt"
       FROM transaction_status_change c WHERE project_id = $1 AND transaction_id = $2 ORDER BY c.id`,
    [projectId, id],
  );
  return result.rows;
}

async function events(projectId: string, id: string): Promise<EventRow[]> {
  const result = await ctx.pool.query<EventRow>(
    `SELECT id, project_id AS "projectId", event_type AS "eventType", payload, created_at AS "createdAt",
            dispatched_at AS "dispatchedAt"
       FROM event WHERE project_id = $1 AND payload -> 'data' ->> 'transactionId' = $2 ORDER BY created_at`,
    [projectId, id],
  );
  return result.rows;
}

describe("create", () => {
  test("keeps a transaction's errorSignatures, and the revert data a move sets", async () => {
    const errorSignatures = ["error Failed(uint256 code)", "error InsufficientBalance(uint256 available, uint256 required)"];
    const input = { ...newTransaction(fixture), errorSignatures };
    expect((await repository.create(input)).created).toBe(true);
    expect(await repository.findById(input.projectId, input.id)).toMatchObject({ errorSignatures, revertData: null });

    const revertData = "0x4e487b710000000000000000000000000000000000000000000000000000000000000011";
    const reason = "simulation reverted: panic 0x11: arithmetic overflow or underflow";
    expect(await repository.move(input.projectId, input.id, { from: "PENDING", to: "INVALID", reason, set: { revertData } })).toBe(true);
    expect(await repository.findById(input.projectId, input.id)).toMatchObject({ status: "INVALID", error: reason, errorSignatures, revertData });
  });

  test("stores the request's optional fields (wallet, gas limit, max fee per gas, expiry) and reads them back", async () => {
    const expiresAt = new Date(Date.now() + 60_000);
    const request = { fromAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", gasLimit: 123_456n, maxFeePerGasWei: 2n ** 200n, expiresAt };
    const input = { ...newTransaction(fixture, { valueWei: 7n }), request };
    const partly = { ...newTransaction(fixture), request: { gasLimit: 50_000n } };
    const [a, b] = await repository.createMany([input, partly]);
    expect([a!.created, b!.created]).toEqual([true, true]);
    expect((await repository.findById(input.projectId, input.id))!.request).toEqual(request);
    expect((await repository.findById(input.projectId, input.id))!.valueWei).toBe(7n);
    expect((await repository.findById(partly.projectId, partly.id))!.request).toEqual({ ...NO_REQUESTED_FIELDS, gasLimit: 50_000n });
  });

  test("stores a PENDING transaction with its first status change and its outbox event", async () => {
    const input = newTransaction(fixture, { valueWei: 10n ** 30n, args: { value: "42", list: [1, { a: "b" }] } });

    const result = await repository.create(input);

    expect(result).toEqual({ created: true, id: input.id, createdAt: expect.any(Date) });
    if (!result.created) throw new Error("not created");
    expect(await repository.findById(input.projectId, input.id)).toEqual({
        ...input,
        status: "PENDING",
        fromAddress: null,
        nonce: null,
        gasLimit: null,
        hash: null,
        blockNumber: null,
        minedHash: null,
        minedBlockNumber: null,
        error: null,
        createdAt: result.createdAt,
        updatedAt: result.createdAt,
        kind: "CALL",
        errorSignatures: null,
        revertData: null,
        request: NO_REQUESTED_FIELDS,
        cancelRequestedAt: null,
        speedUpRequestedAt: null,
    });

    const [change, ...moreChanges] = await changes(input.projectId, input.id);
    expect(moreChanges).toEqual([]);
    expect(change).toMatchObject({ status: "PENDING", previousStatus: null, reason: null, createdAt: result.createdAt });

    const [event, ...moreEvents] = await events(input.projectId, input.id);
    expect(moreEvents).toEqual([]);
    expect(event).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      projectId: input.projectId,
      eventType: "TransactionStatusChange",
      createdAt: result.createdAt,
      dispatchedAt: null,
      payload: {
        id: event?.id,
        eventType: "TransactionStatusChange",
        projectId: input.projectId,
        createdAt: result.createdAt.toISOString(),
        data: {
          transactionId: input.id,
          chainId: Number(fixture.chainId),
          status: "PENDING",
          previousStatus: null,
          hash: null,
          blockNumber: null,
          from: null,
          nonce: null,
          reason: null,
        },
      },
    });
  });

  test("a second create with the same id, whatever its body, creates nothing and names the first", async () => {
    const first = newTransaction(fixture);
    await repository.create(first);

    const again = await repository.create({ ...first, functionSignature: "function other()", args: [], valueWei: 5n });

    expect(again).toEqual({ created: false, existingId: first.id });
    expect(await repository.findById(first.projectId, first.id)).toMatchObject({
      functionSignature: first.functionSignature,
      valueWei: 0n,
    });
    expect(await changes(first.projectId, first.id)).toHaveLength(1);
    expect(await events(first.projectId, first.id)).toHaveLength(1);
  });

  test("the same id in two projects is two transactions", async () => {
    const other = await createFixture(ctx.pool);
    const id = randomUUID();

    const results = await Promise.all([
      repository.create(newTransaction(fixture, { id })),
      repository.create(newTransaction(other, { id })),
    ]);

    expect(results.map((r) => r.created)).toEqual([true, true]);
  });

  test("20 concurrent creates with the same id: exactly one is created, with one change and one event", async () => {
    const input = newTransaction(fixture);

    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => repository.create({ ...input, args: { i } })));

    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(results.filter((r) => !r.created)).toEqual(Array(19).fill({ created: false, existingId: input.id }));
    expect(await changes(input.projectId, input.id)).toHaveLength(1);
    expect(await events(input.projectId, input.id)).toHaveLength(1);
  });

  test("an unknown chain is refused by its foreign key, and nothing is written", async () => {
    const unknownChain = (await createFixture(ctx.pool, 0)).chainId + 1n;
    const input = newTransaction(fixture, { chainId: unknownChain });

    await expect(repository.create(input)).rejects.toThrow(/foreign key/);
    expect(await repository.findById(input.projectId, input.id)).toBeNull();
    expect(await events(input.projectId, input.id)).toEqual([]);
  });
});

describe("createMany and coalesced creates", () => {
  /** Counts the statements the repository sends. */
  let statements = 0;
  const counted: Sql = { query: ((...args: Parameters<Sql["query"]>) => (statements++, ctx.pool.query(...args))) as Sql["query"] };
  const coalescing = createTransactionRepository({ sql: counted, db: ctx.db, coalesce: { maxBatchSize: 100, maxInFlight: 1 } });

  test("createMany stores each transaction with its own change and event, in one statement; a repeated id is created once", async () => {
    const [a, b] = [newTransaction(fixture), newTransaction(fixture)];
    const results = await repository.createMany([a, b, { ...a, args: { again: true } }]);
    expect(results).toEqual([
      { created: true, id: a.id, createdAt: expect.any(Date) },
      { created: true, id: b.id, createdAt: expect.any(Date) },
      { created: false, existingId: a.id },
    ]);
    for (const t of [a, b]) {
      expect(await repository.findById(t.projectId, t.id)).toMatchObject({ args: t.args, status: "PENDING" });
      expect(await changes(t.projectId, t.id)).toHaveLength(1);
      const [event, ...more] = await events(t.projectId, t.id);
      expect(more).toEqual([]);
      expect(event!.payload).toMatchObject({ id: event!.id, data: { transactionId: t.id, status: "PENDING" } });
    }
  });

  test("concurrent creates go out as one statement, each answered as if alone", async () => {
    const inputs = Array.from({ length: 10 }, () => newTransaction(fixture));
    statements = 0;
    const results = await Promise.all([...inputs, inputs[0]!].map((input) => coalescing.create(input)));
    expect(results.slice(0, 10).every((r) => r.created)).toBe(true);
    expect(results[10]).toEqual({ created: false, existingId: inputs[0]!.id });
    // All eleven calls were made in one tick: they go out together.
    expect(statements).toBe(1);
  });

  test("a request Postgres refuses for its data fails alone; the rest of its batch is created", async () => {
    const unknownChain = (await createFixture(ctx.pool, 0)).chainId + 1n;
    const good = [newTransaction(fixture), newTransaction(fixture)];
    const bad = newTransaction(fixture, { chainId: unknownChain });
    // The first call goes out alone; the next three wait behind it and form one batch.
    const first = coalescing.create(newTransaction(fixture));
    const batch = [good[0]!, bad, good[1]!].map((input) => coalescing.create(input).then((r) => r, (e: unknown) => e));
    await first;
    const [okA, refused, okB] = await Promise.all(batch);
    expect(okA).toMatchObject({ created: true });
    expect(okB).toMatchObject({ created: true });
    expect(String(refused)).toMatch(/foreign key/);
    expect(await repository.findById(bad.projectId, bad.id)).toBeNull();
  });
});

describe("move", () => {
  async function created(): Promise<string> {
    const input = newTransaction(fixture);
    await repository.create(input);
    return input.id;
  }

  test("moves a transaction, sets the given fields, and records the change and its event from the row", async () => {
    const id = await created();
    const from = fixture.wallets[0] as string;

    const moved = await repository.move(fixture.projectId, id, {
      from: "PENDING",
      to: "SUBMITTED",
      reason: "broadcast",
      set: { fromAddress: from, nonce: 7n, gasLimit: 21_000n, hash: "0xabc" },
    });

    expect(moved).toBe(true);
    const transaction = await repository.findById(fixture.projectId, id);
    expect(transaction).toMatchObject({
      status: "SUBMITTED",
      fromAddress: from,
      nonce: 7n,
      gasLimit: 21_000n,
      hash: "0xabc",
      error: null,
    });
    const last = (await changes(fixture.projectId, id)).at(-1);
    expect(last).toMatchObject({
      status: "SUBMITTED",
      previousStatus: "PENDING",
      reason: "broadcast",
      createdAt: transaction?.updatedAt,
    });
    const event = (await events(fixture.projectId, id)).find((e) => e.payload.data.status === "SUBMITTED");
    expect(event?.payload).toEqual({
      id: event?.id,
      eventType: "TransactionStatusChange",
      projectId: fixture.projectId,
      createdAt: transaction?.updatedAt.toISOString(),
      data: {
        transactionId: id,
        chainId: Number(fixture.chainId),
        status: "SUBMITTED",
        previousStatus: "PENDING",
        hash: "0xabc",
        blockNumber: null,
        from,
        nonce: "7",
        reason: "broadcast",
      },
    });
  });

  test("is conditional on the previous status: of two concurrent moves from PENDING exactly one wins", async () => {
    const id = await created();

    const results = await Promise.all([
      repository.move(fixture.projectId, id, { from: "PENDING", to: "SUBMITTED", set: { hash: "0x1" } }),
      repository.move(fixture.projectId, id, { from: "PENDING", to: "INVALID", reason: "execution reverted" }),
    ]);

    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = results[0] ? "SUBMITTED" : "INVALID";
    expect((await repository.findById(fixture.projectId, id))?.status).toBe(winner);
    expect((await changes(fixture.projectId, id)).map((c) => c.status)).toEqual(["PENDING", winner]);
    expect(await events(fixture.projectId, id)).toHaveLength(2);
  });

  test("from a status the transaction is not in (or of an unknown transaction) changes nothing", async () => {
    const id = await created();
    const before = await repository.findById(fixture.projectId, id);

    expect(await repository.move(fixture.projectId, id, { from: "SUBMITTED", to: "CONFIRMED" })).toBe(false);
    expect(await repository.move(fixture.projectId, randomUUID(), { from: "PENDING", to: "FAILED" })).toBe(false);
    expect(await repository.move(randomUUID(), id, { from: "PENDING", to: "FAILED" })).toBe(false);

    expect(await repository.findById(fixture.projectId, id)).toEqual(before);
    expect(await changes(fixture.projectId, id)).toHaveLength(1);
    expect(await events(fixture.projectId, id)).toHaveLength(1);
  });

  test("a move outside the lifecycle is refused with a non-retryable INTERNAL error before touching the row", async () => {
    const id = await created();
    const before = await repository.findById(fixture.projectId, id);

    for (const [from, to] of [
      ["PENDING", "CONFIRMED"],
      ["PAUSED", "PAUSED"],
      ["CONFIRMED", "PENDING"],
      ["FAILED", "PENDING"],
      ["PAUSED", "SUBMITTED"],
    ] as const) {
      const move = repository.move(fixture.projectId, id, { from, to });
      await expect(move).rejects.toBeInstanceOf(AppError);
      await expect(move).rejects.toMatchObject({ code: "INTERNAL", retryable: false });
    }

    expect(await repository.findById(fixture.projectId, id)).toEqual(before);
    expect(await changes(fixture.projectId, id)).toHaveLength(1);
  });

  test("every move writes exactly one status change and one event, in order", async () => {
    const id = await created();
    const path: Array<{
      from: TransactionStatus;
      to: TransactionStatus;
      reason: string;
      set?: { hash?: string; blockNumber?: bigint };
    }> = [
      { from: "PENDING", to: "PAUSED", reason: "insufficient funds: needs 21000000000000 wei" },
      { from: "PAUSED", to: "PENDING", reason: "funded" },
      { from: "PENDING", to: "SUBMITTED", reason: "broadcast", set: { hash: "0x01" } },
      { from: "SUBMITTED", to: "SUBMITTED", reason: "stuck: fees raised 12.5%", set: { hash: "0x02" } },
      { from: "SUBMITTED", to: "CONFIRMED", reason: "mined", set: { blockNumber: 1234n } },
    ];

    for (const move of path) {
      expect(await repository.move(fixture.projectId, id, move)).toBe(true);
      const all = await changes(fixture.projectId, id);
      expect(all.at(-1)).toMatchObject({ status: move.to, previousStatus: move.from, reason: move.reason });
    }

    const history = await repository.history(fixture.projectId, id);
    expect(history.map((c) => [c.previousStatus, c.status, c.reason])).toEqual([
      [null, "PENDING", null],
      ...path.map((m) => [m.from, m.to, m.reason]),
    ]);
    expect(history.map((c) => c.id)).toEqual([...history.map((c) => c.id)].sort((a, b) => (a < b ? -1 : 1)));
    expect(history.every((c, i) => i === 0 || c.createdAt >= (history[i - 1]?.createdAt as Date))).toBe(true);

    // One event per change, carrying the change's time, statuses and reason, in the same order.
    const outbox = await events(fixture.projectId, id);
    expect(outbox).toHaveLength(history.length);
    const eventFor = (c: (typeof history)[number]) =>
      outbox.filter(({ payload: { data } }) => data.status === c.status && data.previousStatus === c.previousStatus && data.reason === c.reason);
    for (const change of history) {
      const matching = eventFor(change);
      expect(matching).toHaveLength(1);
      expect(matching[0]?.createdAt).toEqual(change.createdAt);
      expect(matching[0]?.payload.createdAt).toBe(change.createdAt.toISOString());
    }
    const last = outbox.find((e) => e.payload.data.status === "CONFIRMED");
    expect(last?.payload.data).toMatchObject({ hash: "0x02", blockNumber: "1234" });
  });

  test("the error column holds the reason of INVALID, PAUSED, REVERTED and FAILED, and is cleared otherwise", async () => {
    const id = await created();
    const error = async () => (await repository.findById(fixture.projectId, id))?.error;

    await repository.move(fixture.projectId, id, { from: "PENDING", to: "PAUSED", reason: "insufficient funds" });
    expect(await error()).toBe("insufficient funds");
    await repository.move(fixture.projectId, id, { from: "PAUSED", to: "PENDING", reason: "funded" });
    expect(await error()).toBeNull();
    await repository.move(fixture.projectId, id, { from: "PENDING", to: "SUBMITTED", set: { hash: "0x01" } });
    await repository.move(fixture.projectId, id, {
      from: "SUBMITTED",
      to: "REVERTED",
      reason: "reverted in block 9",
      set: { error: "execution reverted: Ownable" },
    });
    expect(await error()).toBe("execution reverted: Ownable");
  });

  test("a move naming another wallet than the one the bound nonce belongs to, without a nonce, changes nothing", async () => {
    const twoWallets = await createFixture(ctx.pool, 2);
    const [bound, other] = twoWallets.wallets as [string, string];
    const input = newTransaction(twoWallets);
    await repository.create(input);
    // Decided on a read from before the binding: the transaction was unbound, `other` was preferred.
    await repository.allocateNonce({ projectId: twoWallets.projectId, transactionId: input.id, address: bound, chainPendingNonce: 0n });

    expect(await repository.move(twoWallets.projectId, input.id, { from: "PENDING", to: "PAUSED", reason: "cannot pay", set: { fromAddress: other } })).toBe(false);
    expect(await repository.findById(twoWallets.projectId, input.id)).toMatchObject({ status: "PENDING", fromAddress: bound, nonce: 0n });

    // Its own wallet, or a wallet with its nonce, moves it.
    expect(await repository.move(twoWallets.projectId, input.id, { from: "PENDING", to: "PAUSED", reason: "cannot pay", set: { fromAddress: bound } })).toBe(true);
    expect(await repository.findById(twoWallets.projectId, input.id)).toMatchObject({ status: "PAUSED", fromAddress: bound, nonce: 0n });
  });

  test("a field set to null is cleared; one left out keeps its value", async () => {
    const id = await created();
    await repository.move(fixture.projectId, id, { from: "PENDING", to: "SUBMITTED", set: { hash: "0x01", gasLimit: 50_000n } });

    await repository.move(fixture.projectId, id, { from: "SUBMITTED", to: "SUBMITTED", set: { hash: null } });

    expect(await repository.findById(fixture.projectId, id)).toMatchObject({ hash: null, gasLimit: 50_000n });
  });
});

describe("noteMined", () => {
  test("records the attempt seen in a block on a SUBMITTED transaction only, without a status change, an event or a new updated_at; null forgets it", async () => {
    const input = newTransaction(fixture);
    await repository.create(input);
    await repository.noteMined(fixture.projectId, input.id, { hash: "0xaa", blockNumber: 5n });
    expect(await repository.findById(fixture.projectId, input.id)).toMatchObject({ status: "PENDING", minedHash: null, minedBlockNumber: null });

    await repository.move(fixture.projectId, input.id, { from: "PENDING", to: "SUBMITTED", set: { fromAddress: fixture.wallets[0] as string, nonce: 70n, hash: "0xaa" } });
    const before = await repository.findById(fixture.projectId, input.id);
    const changesBefore = (await changes(fixture.projectId, input.id)).length;
    const eventsBefore = (await events(fixture.projectId, input.id)).length;
    await repository.noteMined(fixture.projectId, input.id, { hash: "0xaa", blockNumber: 5n });
    const noted = await repository.findById(fixture.projectId, input.id);
    expect(noted).toMatchObject({ status: "SUBMITTED", minedHash: "0xaa", minedBlockNumber: 5n, blockNumber: null, updatedAt: before!.updatedAt });
    expect((await changes(fixture.projectId, input.id)).length).toBe(changesBefore);
    expect((await events(fixture.projectId, input.id)).length).toBe(eventsBefore);

    await repository.noteMined(fixture.projectId, input.id, null);
    expect(await repository.findById(fixture.projectId, input.id)).toMatchObject({ minedHash: null, minedBlockNumber: null });
  });
});

describe("coalesced moves", () => {
  let statements = 0;
  const counted: Sql = { query: ((...args: Parameters<Sql["query"]>) => (statements++, ctx.pool.query(...args))) as Sql["query"] };
  const coalescing = createTransactionRepository({ sql: counted, db: ctx.db, coalesce: { maxBatchSize: 100, maxInFlight: 1 } });

  test("concurrent moves share one statement; each is answered for itself, with its own change and event", async () => {
    const inputs = Array.from({ length: 6 }, () => newTransaction(fixture));
    await repository.createMany(inputs);
    statements = 0;
    const results = await Promise.all([
      ...inputs.map((t, i) => coalescing.move(t.projectId, t.id, { from: "PENDING", to: i % 2 ? "INVALID" : "PAUSED", reason: `r${i}` })),
      // Already PENDING → …: this one finds it moved (or moves it first) — exactly one of the two wins.
      coalescing.move(inputs[0]!.projectId, inputs[0]!.id, { from: "PENDING", to: "FAILED", reason: "racer" }),
    ]);
    expect(statements).toBe(1);
    expect(results.slice(1, 6)).toEqual([true, true, true, true, true]);
    expect([results[0], results[6]].filter(Boolean)).toHaveLength(1);
    for (const [i, t] of inputs.entries()) {
      const all = await changes(t.projectId, t.id);
      expect(all).toHaveLength(2);
      const [event, ...more] = (await events(t.projectId, t.id)).slice(1);
      expect(more).toEqual([]);
      if (i > 0) expect(event!.payload.data).toMatchObject({ status: i % 2 ? "INVALID" : "PAUSED", previousStatus: "PENDING", reason: `r${i}` });
    }
  });

  test("concurrent attempts are stored in one statement; the same signed bytes twice store once", async () => {
    const inputs = Array.from({ length: 4 }, () => newTransaction(fixture));
    await repository.createMany(inputs);
    const attempt = (t: (typeof inputs)[number], i: number) => ({
      projectId: t.projectId, transactionId: t.id, chainId: fixture.chainId, fromAddress: fixture.wallets[0] as string,
      nonce: BigInt(i), hash: `0x${randomUUID().replace(/-/g, "")}`, rawTransaction: Uint8Array.from([i]), type: 0 as const,
      gasLimit: 21_000n, gasPriceWei: 7n,
    });
    const attempts = inputs.map(attempt);
    statements = 0;
    const stored = await Promise.all([...attempts, attempts[0]!].map((a) => coalescing.recordAttempt(a)));
    expect(statements).toBe(2); // the batch, and the read of the repeated hash
    expect(stored[4]).toEqual(stored[0]);
    for (const [i, t] of inputs.entries()) expect(await repository.attempts(t.projectId, t.id)).toEqual([stored[i]]);
  });

  test("a move can mark the attempt it broadcast in the same commit", async () => {
    const t = newTransaction(fixture);
    await repository.create(t);
    const hash = `0x${randomUUID().replace(/-/g, "")}`;
    await repository.recordAttempt({
      projectId: t.projectId, transactionId: t.id, chainId: fixture.chainId, fromAddress: fixture.wallets[0] as string,
      nonce: 0n, hash, rawTransaction: Uint8Array.from([1]), type: 2, gasLimit: 21_000n, maxFeePerGasWei: 1n, maxPriorityFeePerGasWei: 1n,
    });
    expect(await coalescing.move(t.projectId, t.id, { from: "PENDING", to: "SUBMITTED", set: { hash }, markBroadcast: hash })).toBe(true);
    expect((await repository.attempts(t.projectId, t.id))[0]!.broadcastAt).toBeInstanceOf(Date);
    expect(await repository.findById(t.projectId, t.id)).toMatchObject({ status: "SUBMITTED", hash });
  });
});

describe("findUnfinished", () => {
  test("returns PENDING, SUBMITTED and PAUSED transactions untouched since the cutoff, oldest first", async () => {
    const ids: Record<string, string> = {};
    for (const status of ["PENDING", "SUBMITTED", "PAUSED", "CONFIRMED", "INVALID"] as const) {
      const input = newTransaction(fixture);
      await repository.create(input);
      ids[status] = input.id;
      if (status === "SUBMITTED" || status === "CONFIRMED") {
        await repository.move(fixture.projectId, input.id, { from: "PENDING", to: "SUBMITTED", set: { hash: randomUUID() } });
      }
      if (status === "CONFIRMED") await repository.move(fixture.projectId, input.id, { from: "SUBMITTED", to: "CONFIRMED" });
      if (status === "PAUSED" || status === "INVALID") {
        await repository.move(fixture.projectId, input.id, { from: "PENDING", to: status });
      }
    }
    const before = new Date(Date.now() - 60_000);

    const mine = (await repository.findUnfinished({ olderThan: new Date(Date.now() + 1000), limit: 100_000 })).filter(
      (t) => t.projectId === fixture.projectId,
    );

    expect(mine.map((t) => [t.status, t.id]).sort()).toEqual([
      ["PAUSED", ids.PAUSED],
      ["PENDING", ids.PENDING],
      ["SUBMITTED", ids.SUBMITTED],
    ]);
    expect(mine.every((t, i) => i === 0 || t.updatedAt >= (mine[i - 1]?.updatedAt as Date))).toBe(true);
    const older = await repository.findUnfinished({ olderThan: before, limit: 100_000 });
    expect(older.filter((t) => t.projectId === fixture.projectId)).toEqual([]);
    const one = await repository.findUnfinished({ olderThan: new Date(Date.now() + 1000), limit: 1 });
    expect(one).toHaveLength(1);
  });
});

describe("attempts", () => {
  test("are stored before broadcast, marked broadcast once, listed oldest first; the same signed bytes store once", async () => {
    const input = newTransaction(fixture);
    await repository.create(input);
    const base = {
      projectId: fixture.projectId,
      transactionId: input.id,
      chainId: fixture.chainId,
      fromAddress: fixture.wallets[0] as string,
      nonce: 3n,
      type: 2 as const,
      gasLimit: 21_000n,
      maxFeePerGasWei: 2n * 10n ** 9n,
      maxPriorityFeePerGasWei: 10n ** 9n,
    };
    const hash1 = `0x${randomUUID().replace(/-/g, "")}`;
    const hash2 = `0x${randomUUID().replace(/-/g, "")}`;

    const first = await repository.recordAttempt({ ...base, hash: hash1, rawTransaction: Uint8Array.from([2, 1, 1]) });
    expect(first).toEqual({
      ...base,
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      hash: hash1,
      rawTransaction: Uint8Array.from([2, 1, 1]),
      gasPriceWei: null,
      createdAt: expect.any(Date),
      broadcastAt: null,
      cancel: false,
    });
    expect(await repository.recordAttempt({ ...base, hash: hash1, rawTransaction: Uint8Array.from([2, 1, 1]) })).toEqual(first);

    expect(await repository.markAttemptBroadcast(hash1)).toBe(true);
    expect(await repository.markAttemptBroadcast(hash1)).toBe(false);
    expect(await repository.markAttemptBroadcast("0xunknown")).toBe(false);

    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await repository.recordAttempt({
      ...base,
      hash: hash2,
      rawTransaction: Uint8Array.from([2, 1, 2]),
      maxFeePerGasWei: 3n * 10n ** 9n,
    });

    const attempts = await repository.attempts(fixture.projectId, input.id);
    expect(attempts.map((a) => a.hash)).toEqual([hash1, hash2]);
    expect(attempts[0]?.broadcastAt).toBeInstanceOf(Date);
    expect(attempts[1]).toEqual(second);
    expect(await repository.attempts(fixture.projectId, randomUUID())).toEqual([]);
  });

  test("a hash stored for another transaction is not taken over", async () => {
    const a = newTransaction(fixture);
    const b = newTransaction(fixture);
    await repository.create(a);
    await repository.create(b);
    const attempt = {
      projectId: fixture.projectId,
      chainId: fixture.chainId,
      fromAddress: fixture.wallets[0] as string,
      nonce: 0n,
      hash: `0x${randomUUID().replace(/-/g, "")}`,
      rawTransaction: Uint8Array.from([1]),
      type: 0 as const,
      gasLimit: 21_000n,
      gasPriceWei: 10n ** 9n,
    };
    await repository.recordAttempt({ ...attempt, transactionId: a.id });

    await expect(repository.recordAttempt({ ...attempt, transactionId: b.id })).rejects.toThrow();
  });
});
