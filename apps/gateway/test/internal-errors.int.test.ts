import { createChainRepository } from "@relay/db";
import { createProjectFixture, createTestDatabase, type ProjectFixture, type TestDatabase } from "@relay/testing";
import { post, startHarness, type Harness } from "./harness";

/**
 * The contract's 500s: sendTransaction's has no fields (`{}`), personal sign's has `message`.
 * A table taken away makes Postgres fail the step that reads it; the gateway must answer the
 * contract's body whichever step failed, and stay up. On a database of this test's own.
 */
describe("internal errors answer the contract's 500 body", () => {
  const CHAIN_ID = 31_777;
  let database: TestDatabase;
  let h: Harness;
  let project: ProjectFixture;

  const sendTransaction = () =>
    post(h.baseUrl, "/transact/sendTransaction", { projectId: project.projectId, chainId: CHAIN_ID, contractAddress: project.wallets[0]!.address, functionSignature: "ping()" }, project.apiKey);
  const personalSign = () => post(h.baseUrl, `/wallet/project/${project.projectId}/personalSign`, { signerAddress: project.wallets[0]!.address, message: "m" }, project.apiKey);
  /** Runs `during` while `table` is renamed away, then puts it back. */
  const withoutTable = async (table: string, during: () => Promise<void>) => {
    await h.db.$executeRawUnsafe(`ALTER TABLE "${table}" RENAME TO "${table}_away"`);
    try {
      await during();
    } finally {
      await h.db.$executeRawUnsafe(`ALTER TABLE "${table}_away" RENAME TO "${table}"`);
    }
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    // No auth cache (the harness default), so every request reads its key from Postgres.
    h = await startHarness("internal-errors", {}, { databaseUrl: database.url });
    await createChainRepository(h.db).upsert({ chainId: BigInt(CHAIN_ID), name: "errors", rpcUrls: ["http://127.0.0.1:9"], confirmations: 1, lowBalanceThresholdWei: 0n, blockTimeMs: 1000, stuckAfterSeconds: 30 });
    project = await createProjectFixture(h.db, h.kek, { wallets: 1 });
  });
  afterAll(async () => {
    await h.close();
    await database.drop();
  });

  it("answers sendTransaction with 500 {} when the key lookup fails, before the route runs", async () => {
    await withoutTable("api_key", async () => {
      const res = await sendTransaction();
      expect(res.status).toBe(500);
      expect(res.body).toEqual({});
      // Personal sign's 500 carries a message (the contract's Internal Error for that endpoint).
      const sign = await personalSign();
      expect(sign.status).toBe(500);
      expect(typeof sign.body.message).toBe("string");
    });
    expect((await sendTransaction()).status).toBe(200);
  });

  it("answers sendTransaction with 500 {} when the transaction cannot be stored", async () => {
    await withoutTable("transaction", async () => {
      const res = await sendTransaction();
      expect(res.status).toBe(500);
      expect(res.body).toEqual({});
    });
    expect((await fetch(`${h.baseUrl}/health`)).status).toBe(200);
  });
});
