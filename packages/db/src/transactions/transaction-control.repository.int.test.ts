import { randomUUID } from "node:crypto";
import { AppError } from "@relay/core";
import { createFixture, newTransaction, transactionTestContext, type Fixture } from "./test-fixtures";
import { CANCELLED_UNSENT_REASON, createTransactionControl } from "./transaction-control.repository";

const ctx = transactionTestContext();
const { repository } = ctx;
const control = createTransactionControl(ctx.pool);
let fixture: Fixture;

beforeEach(async () => {
  fixture = await createFixture(ctx.pool);
});
afterAll(() => ctx.close());

const attempt = (transactionId: string, cancel = false) => ({
  projectId: fixture.projectId,
  transactionId,
  chainId: fixture.chainId,
  fromAddress: fixture.wallets[0] as string,
  nonce: 0n,
  hash: `0x${randomUUID().replace(/-/g, "")}`,
  rawTransaction: Uint8Array.from([1]),
  type: 0 as const,
  gasLimit: 21_000n,
  gasPriceWei: 10n ** 9n,
  cancel,
});

const statusesOf = async (id: string) =>
  (await ctx.pool.query<{ status: string; reason: string | null }>(`SELECT status, reason FROM transaction_status_change WHERE project_id = $1 AND transaction_id = $2 ORDER BY id`, [fixture.projectId, id])).rows;

test("a PENDING transaction with nothing signed is CANCELLED at once, with its status change and event; asking again changes nothing", async () => {
  const tx = newTransaction(fixture);
  await repository.create(tx);
  const requested = await control.requestCancel(fixture.projectId, tx.id);
  expect(requested).toMatchObject({ status: "PENDING", cancelRequestedAt: expect.any(Date) });
  expect(await control.cancelUnsent(fixture.projectId, tx.id)).toBe(true);
  expect(await repository.findById(fixture.projectId, tx.id)).toMatchObject({ status: "CANCELLED", error: null });
  expect(await statusesOf(tx.id)).toEqual([
    { status: "PENDING", reason: null },
    { status: "CANCELLED", reason: CANCELLED_UNSENT_REASON },
  ]);
  const { rows } = await ctx.pool.query<{ payload: { data: { status: string; previousStatus: string } } }>(
    `SELECT payload FROM event WHERE project_id = $1 AND subject = $2 ORDER BY created_at`,
    [fixture.projectId, tx.id],
  );
  expect(rows.map((r) => [r.payload.data.previousStatus, r.payload.data.status])).toEqual([
    [null, "PENDING"],
    ["PENDING", "CANCELLED"],
  ]);
  // Final now: neither request applies.
  expect(await control.requestCancel(fixture.projectId, tx.id)).toBeNull();
  expect(await control.cancelUnsent(fixture.projectId, tx.id)).toBe(false);
  expect(await control.requestSpeedUp(fixture.projectId, tx.id)).toBeNull();
});

test("a PENDING transaction with an attempt signed is not cancelled by the gateway: the attempt may be out there", async () => {
  const tx = newTransaction(fixture);
  await repository.create(tx);
  await repository.recordAttempt(attempt(tx.id));
  await control.requestCancel(fixture.projectId, tx.id);
  expect(await control.cancelUnsent(fixture.projectId, tx.id)).toBe(false);
  expect((await repository.findById(fixture.projectId, tx.id))?.status).toBe("PENDING");
});

test("once a cancel is asked for, no attempt of the call is stored (a retryable CONFLICT); a cancel attempt is", async () => {
  const tx = newTransaction(fixture);
  await repository.create(tx);
  await control.requestCancel(fixture.projectId, tx.id);
  const refused = await repository.recordAttempt(attempt(tx.id)).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(AppError);
  expect(refused).toMatchObject({ code: "CONFLICT", retryable: true });
  expect(await repository.attempts(fixture.projectId, tx.id)).toEqual([]);
  const cancel = await repository.recordAttempt(attempt(tx.id, true));
  expect(cancel.cancel).toBe(true);
  expect((await repository.attempts(fixture.projectId, tx.id)).map((a) => a.cancel)).toEqual([true]);
});

test("a speed-up is recorded only on a SUBMITTED transaction with no cancel asked for", async () => {
  const tx = newTransaction(fixture);
  await repository.create(tx);
  expect(await control.requestSpeedUp(fixture.projectId, tx.id)).toBeNull();
  await repository.move(fixture.projectId, tx.id, { from: "PENDING", to: "SUBMITTED", set: { fromAddress: fixture.wallets[0] as string, nonce: 0n } });
  expect(await control.requestSpeedUp(fixture.projectId, tx.id)).toMatchObject({ status: "SUBMITTED", speedUpRequestedAt: expect.any(Date) });
  await control.requestCancel(fixture.projectId, tx.id);
  expect(await control.requestSpeedUp(fixture.projectId, tx.id)).toBeNull();
  // SUBMITTED is never cancelled by the gateway: only a mined cancel makes it CANCELLED.
  expect(await control.cancelUnsent(fixture.projectId, tx.id)).toBe(false);
});
