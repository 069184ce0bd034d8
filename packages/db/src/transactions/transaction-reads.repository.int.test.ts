import { randomBytes, randomUUID } from "node:crypto";
import { createFixture, newTransaction, transactionTestContext, type Fixture } from "./test-fixtures";
import { createTransactionReads } from "./transaction-reads.repository";

const ctx = transactionTestContext();
afterAll(() => ctx.close());
const reads = createTransactionReads(ctx.pool);

const hash = () => `0x${randomBytes(32).toString("hex")}`;
const pause = () => new Promise((r) => setTimeout(r, 5));

/** One transaction per call, created one after the other so their order is known. */
async function transaction(fixture: Fixture, overrides: Parameters<typeof newTransaction>[1] = {}) {
  const input = newTransaction(fixture, overrides);
  await ctx.repository.create(input);
  await pause();
  return input;
}

async function attempt(fixture: Fixture, transactionId: string, nonce: bigint, from = fixture.wallets[0]!) {
  const h = hash();
  await ctx.repository.recordAttempt({
    projectId: fixture.projectId, transactionId, chainId: fixture.chainId, fromAddress: from,
    nonce, hash: h, rawTransaction: Uint8Array.from([0x02, Number(nonce)]), type: 2, gasLimit: 21_000n, maxFeePerGasWei: 2n, maxPriorityFeePerGasWei: 1n,
  });
  await pause();
  return h;
}

describe("a project's requests and attempts, as Syndicate's reads list them", () => {
  let fixture: Fixture;
  let other: Fixture;
  const t: Record<"confirmed" | "submitted" | "invalid" | "reverted", string> = { confirmed: "", submitted: "", invalid: "", reverted: "" };
  const h: Record<"replaced" | "mined" | "submitted" | "reverted", string> = { replaced: "", mined: "", submitted: "", reverted: "" };
  let otherId: string;

  beforeAll(async () => {
    fixture = await createFixture(ctx.pool, 2);
    other = await createFixture(ctx.pool);
    const move = ctx.repository.move;

    // CONFIRMED after a fee bump: the first attempt was replaced, the second mined in block 100.
    t.confirmed = (await transaction(fixture, { functionSignature: "function setOrder((uint256 id, address owner) order)", args: [["1", fixture.wallets[0]!]] })).id;
    h.replaced = await attempt(fixture, t.confirmed, 0n);
    await move(fixture.projectId, t.confirmed, { from: "PENDING", to: "SUBMITTED", set: { hash: h.replaced }, markBroadcast: h.replaced });
    h.mined = await attempt(fixture, t.confirmed, 0n);
    await move(fixture.projectId, t.confirmed, { from: "SUBMITTED", to: "SUBMITTED", set: { hash: h.mined } });
    await move(fixture.projectId, t.confirmed, { from: "SUBMITTED", to: "CONFIRMED", set: { hash: h.mined, blockNumber: 100n } });

    // SUBMITTED, one attempt, from the second wallet.
    t.submitted = (await transaction(fixture, { contractAddress: "0x0000000000000000000000000000000000C0FFEE" })).id;
    h.submitted = await attempt(fixture, t.submitted, 1n, fixture.wallets[1]!);
    await move(fixture.projectId, t.submitted, { from: "PENDING", to: "SUBMITTED", set: { hash: h.submitted } });

    // INVALID: simulation refused it; no attempt.
    t.invalid = (await transaction(fixture)).id;
    await move(fixture.projectId, t.invalid, { from: "PENDING", to: "INVALID", reason: "always reverts" });

    // REVERTED in block 101.
    t.reverted = (await transaction(fixture)).id;
    h.reverted = await attempt(fixture, t.reverted, 2n);
    await move(fixture.projectId, t.reverted, { from: "PENDING", to: "SUBMITTED", set: { hash: h.reverted } });
    await move(fixture.projectId, t.reverted, { from: "SUBMITTED", to: "REVERTED", set: { blockNumber: 101n }, reason: "reverted" });

    otherId = (await transaction(other)).id;
    await attempt(other, otherId, 0n);
  });

  it("reads one request with its attempts, oldest first: which is current, their versions, what superseded the first", async () => {
    const request = await reads.findRequest(fixture.projectId, t.confirmed);
    expect(request).toMatchObject({ id: t.confirmed, projectId: fixture.projectId, status: "CONFIRMED", valueWei: 0n, args: [["1", fixture.wallets[0]]], calldata: "0x552410772a" });
    expect(request!.attempts.map((a) => [a.hash, a.current, a.version, a.blockNumber, a.status])).toEqual([
      [h.replaced, false, 0, 100n, "CONFIRMED"],
      [h.mined, true, 1, 100n, "CONFIRMED"],
    ]);
    expect(request!.attempts[0]!.nextCreatedAt).toEqual(request!.attempts[1]!.createdAt);
    expect(request!.attempts[1]!.nextCreatedAt).toBeNull();
    expect(request!.attempts[0]!.rawTransaction).toBe("0x0200");
    expect((await reads.findRequest(fixture.projectId, t.invalid))!.attempts).toEqual([]);
  });

  it("never reads another project's request or attempts", async () => {
    expect(await reads.findRequest(fixture.projectId, otherId)).toBeNull();
    expect(await reads.listRequests(fixture.projectId, { search: { text: otherId, uuid: otherId } }, { limit: 10, offset: 0 })).toEqual({ total: 0, requests: [] });
    expect(await reads.listAttempts(fixture.projectId, { search: { text: otherId, uuid: otherId } }, { limit: 10, offset: 0 })).toEqual({ total: 0, attempts: [] });
  });

  it("lists requests newest first, a page at a time, with the total of all pages", async () => {
    const all = await reads.listRequests(fixture.projectId, {}, { limit: 10, offset: 0 });
    expect(all.total).toBe(4);
    expect(all.requests.map((r) => r.id)).toEqual([t.reverted, t.invalid, t.submitted, t.confirmed]);
    const second = await reads.listRequests(fixture.projectId, {}, { limit: 3, offset: 3 });
    expect([second.total, second.requests.map((r) => r.id)]).toEqual([4, [t.confirmed]]);
    expect(await reads.listRequests(fixture.projectId, {}, { limit: 3, offset: 9 })).toEqual({ total: 4, requests: [] });
  });

  it("narrows requests by status and finds them by id, contract address in any case, or a part of the function signature", async () => {
    const ids = async (filter: Parameters<typeof reads.listRequests>[1]) => {
      const page = await reads.listRequests(fixture.projectId, filter, { limit: 10, offset: 0 });
      expect(page.total).toBe(page.requests.length);
      return page.requests.map((r) => r.id);
    };
    expect(await ids({ statuses: ["INVALID"] })).toEqual([t.invalid]);
    expect(await ids({ statuses: ["CONFIRMED", "REVERTED"] })).toEqual([t.reverted, t.confirmed]);
    expect(await ids({ search: { text: t.submitted.toUpperCase(), uuid: t.submitted } })).toEqual([t.submitted]);
    expect(await ids({ search: { text: "0x0000000000000000000000000000000000c0ffee", uuid: null } })).toEqual([t.submitted]);
    expect(await ids({ search: { text: "setOrder", uuid: null } })).toEqual([t.confirmed]);
    expect(await ids({ search: { text: "setOrder", uuid: null }, statuses: ["INVALID"] })).toEqual([]);
    expect(await ids({ search: { text: "nothing like it", uuid: null } })).toEqual([]);
  });

  it("lists attempts newest first with totals, narrowed by class, and finds them by hash, wallet address in any case, or transaction id", async () => {
    const hashes = async (filter: Parameters<typeof reads.listAttempts>[1], paging = { limit: 10, offset: 0 }) => {
      const page = await reads.listAttempts(fixture.projectId, filter, paging);
      return [page.total, page.attempts.map((a) => a.hash)];
    };
    expect(await hashes({})).toEqual([4, [h.reverted, h.submitted, h.mined, h.replaced]]);
    expect(await hashes({}, { limit: 2, offset: 2 })).toEqual([4, [h.mined, h.replaced]]);
    expect(await hashes({ classes: [{ status: "CONFIRMED", current: true }] })).toEqual([1, [h.mined]]);
    expect(await hashes({ classes: [{ status: "CONFIRMED", current: false }, { status: "REVERTED", current: true }] })).toEqual([2, [h.reverted, h.replaced]]);
    expect(await hashes({ classes: [] })).toEqual([0, []]);
    expect(await hashes({ search: { text: h.mined.toUpperCase().replace("0X", "0x"), uuid: null } })).toEqual([1, [h.mined]]);
    expect(await hashes({ search: { text: fixture.wallets[1]!.toUpperCase().replace("0X", "0x"), uuid: null } })).toEqual([1, [h.submitted]]);
    expect(await hashes({ search: { text: t.confirmed, uuid: t.confirmed } })).toEqual([2, [h.mined, h.replaced]]);
  });

  it("counts the project's requests per status", async () => {
    expect(await reads.countByStatus(fixture.projectId)).toEqual({ CONFIRMED: 1, SUBMITTED: 1, INVALID: 1, REVERTED: 1 });
    expect(await reads.countByStatus(randomUUID())).toEqual({});
  });
});
