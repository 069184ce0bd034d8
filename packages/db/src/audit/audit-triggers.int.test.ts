/**
 * The entries Postgres writes itself (migration 20261127000000_audit_log): one per signature made,
 * whatever code path makes it, committed with the record it is about.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { createSignatureRepository } from "../repositories/signature.repository";
import { typedDataMessage } from "../repositories/signature-content";
import { createNonceFillerRepository } from "../transactions/nonce-filler.repository";
import { createFixture, newTransaction, transactionTestContext, type Fixture } from "../transactions/test-fixtures";

const ctx = transactionTestContext();
const signatures = createSignatureRepository(ctx.pool);
const fillers = createNonceFillerRepository(ctx.pool);
let fixture: Fixture;
let walletId: string;

beforeEach(async () => {
  fixture = await createFixture(ctx.pool, 1);
  walletId = (await ctx.pool.query<{ id: string }>(`SELECT id FROM wallet WHERE address = $1`, [fixture.wallets[0]])).rows[0]!.id;
});

afterAll(() => ctx.close());

const entriesOf = (projectId: string) =>
  ctx.db.auditLog.findMany({ where: { projectId }, orderBy: { id: "asc" } });

const hash = () => `0x${randomBytes(32).toString("hex")}`;

describe("signatures", () => {
  test("a record turning SIGNED is one entry by the key that asked, of its kind; a PENDING one removed is none", async () => {
    const apiKeyId = randomUUID();
    const content = { projectId: fixture.projectId, walletId, apiKeyId };
    const personal = { ...content, id: randomUUID(), message: new TextEncoder().encode("hello") };
    const typed = { ...content, id: randomUUID(), message: typedDataMessage('{"message":{}}') };
    const dropped = { ...content, id: randomUUID(), message: new TextEncoder().encode("never signed") };
    for (const request of [personal, typed, dropped]) expect(await signatures.insertPending(request)).toBe(true);
    expect(await entriesOf(fixture.projectId)).toEqual([]);

    expect(await signatures.markSigned(personal, "0xsig1", personal)).toBe(true);
    expect(await signatures.markSigned(typed, "0xsig2", typed)).toBe(true);
    // Signing it again changes nothing, and records nothing.
    expect(await signatures.markSigned(personal, "0xsig1", personal)).toBe(false);
    expect(await signatures.deletePending(dropped, dropped)).toBe(true);

    const entries = await entriesOf(fixture.projectId);
    expect(entries.map((e) => [e.action, e.actorType, e.actorId, e.subject, e.walletAddress])).toEqual([
      ["signature.message", "api_key", apiKeyId, personal.id, fixture.wallets[0]],
      ["signature.typed_data", "api_key", apiKeyId, typed.id, fixture.wallets[0]],
    ]);
    expect(entries[0]!.details).toEqual({ walletId });
  });

  test("a batch signed in one statement is one entry per record", async () => {
    const coalescing = createSignatureRepository(ctx.pool, { coalesce: { maxBatchSize: 10, maxInFlight: 1 } });
    const requests = Array.from({ length: 5 }, (_, i) => ({ projectId: fixture.projectId, walletId, id: randomUUID(), message: new TextEncoder().encode(`m${i}`), apiKeyId: randomUUID() }));
    await Promise.all(requests.map((r) => coalescing.insertPending(r)));
    expect(await Promise.all(requests.map((r) => coalescing.markSigned(r, "0xsig", r)))).toEqual(requests.map(() => true));
    const entries = await entriesOf(fixture.projectId);
    expect(entries.map((e) => [e.subject, e.actorId]).sort()).toEqual(requests.map((r) => [r.id, r.apiKeyId]).sort());
  });
});

describe("transactions", () => {
  test("each signed attempt is one entry by the key that sent the transaction; a cancel is a cancel_signed", async () => {
    const apiKeyId = randomUUID();
    const input = newTransaction(fixture, { apiKeyId });
    await ctx.repository.create(input);
    const base = { projectId: fixture.projectId, transactionId: input.id, chainId: fixture.chainId, fromAddress: fixture.wallets[0]!, nonce: 3n, type: 2 as const, gasLimit: 21_000n };
    const first = { ...base, hash: hash(), rawTransaction: randomBytes(50) };
    await ctx.repository.recordAttempt(first);
    // The same signed bytes stored again (a retried job) are not a second signature.
    await ctx.repository.recordAttempt(first);
    const cancel = { ...base, hash: hash(), rawTransaction: randomBytes(50), cancel: true };
    await ctx.repository.recordAttempt(cancel);

    const entries = await entriesOf(fixture.projectId);
    expect(entries.map((e) => [e.action, e.actorType, e.actorId, e.subject, e.walletAddress])).toEqual([
      ["transaction.signed", "api_key", apiKeyId, input.id, fixture.wallets[0]],
      ["transaction.cancel_signed", "api_key", apiKeyId, input.id, fixture.wallets[0]],
    ]);
    expect(entries[0]!.details).toEqual(expect.objectContaining({ kind: "CALL", chainId: fixture.chainId.toString(), nonce: "3", hash: first.hash }));
    expect(entries[1]!.details).toEqual(expect.objectContaining({ hash: cancel.hash }));
  });

  test("a top-up's attempt is the relay's", async () => {
    const id = randomUUID();
    await ctx.pool.query(
      `INSERT INTO transaction (project_id, id, chain_id, contract_address, function_signature, args, calldata, kind, funded_project_id)
       VALUES ($1, $2, $3, $4, '', '[]', '\\x', 'FUNDING', $1)`,
      [fixture.projectId, id, fixture.chainId.toString(), `0x${randomBytes(20).toString("hex")}`],
    );
    await ctx.repository.recordAttempt({ projectId: fixture.projectId, transactionId: id, chainId: fixture.chainId, fromAddress: fixture.wallets[0]!, nonce: 0n, type: 2, gasLimit: 21_000n, hash: hash(), rawTransaction: randomBytes(40) });
    const entries = await entriesOf(fixture.projectId);
    expect(entries.map((e) => [e.action, e.actorType, e.actorId, e.subject])).toEqual([["transaction.signed", "relay", "relay", id]]);
    expect(entries[0]!.details).toEqual(expect.objectContaining({ kind: "FUNDING" }));
  });
});

describe("nonce fillers", () => {
  test("a filler signed and its replacement are each one entry of the relay's, on the wallet's project", async () => {
    const filler = { chainId: fixture.chainId, address: fixture.wallets[0]!, nonce: 5n, hash: hash(), rawTransaction: randomBytes(40) };
    await fillers.record(filler);
    // Recorded again (another replica's same filler): no second entry.
    await fillers.record({ ...filler, hash: hash() });
    const replacement = { ...filler, hash: hash(), rawTransaction: randomBytes(40) };
    await fillers.replace(filler.hash, replacement);
    const entries = await entriesOf(fixture.projectId);
    expect(entries.map((e) => [e.action, e.actorType, e.actorId, e.subject, e.walletAddress])).toEqual([
      ["nonce_filler.signed", "relay", "relay", filler.hash, fixture.wallets[0]],
      ["nonce_filler.signed", "relay", "relay", replacement.hash, fixture.wallets[0]],
    ]);
    expect(entries.map((e) => e.details)).toEqual([
      { chainId: fixture.chainId.toString(), nonce: "5", replacement: false },
      { chainId: fixture.chainId.toString(), nonce: "5", replacement: true },
    ]);
  });
});
