import { randomBytes } from "node:crypto";
import { createFixture, transactionTestContext, type Fixture } from "./test-fixtures";
import { createNonceFillerRepository, type NonceFillerRecord } from "./nonce-filler.repository";

const ctx = transactionTestContext();
const fillers = createNonceFillerRepository(ctx.pool);
let fixture: Fixture;

beforeEach(async () => {
  fixture = await createFixture(ctx.pool, 1);
});

afterAll(() => ctx.close());

const signed = (nonce = 0n): Omit<NonceFillerRecord, "createdAt" | "signedAt"> => {
  const raw = randomBytes(40);
  return { chainId: fixture.chainId, address: fixture.wallets[0]!, nonce, hash: `0x${randomBytes(32).toString("hex")}`, rawTransaction: raw };
};

/** Another replica's statement, left uncommitted until `commit()`. */
async function uncommitted(text: string, params: unknown[]) {
  const client = await ctx.pool.connect();
  await client.query("BEGIN");
  await client.query(text, params);
  return {
    commit: async () => {
      await client.query("COMMIT");
      client.release();
    },
  };
}

describe("nonce fillers racing another replica", () => {
  test("record returns the other replica's filler when its insert commits while this one waits", async () => {
    const theirs = signed();
    const other = await uncommitted(
      `INSERT INTO nonce_filler (chain_id, address, nonce, hash, raw_transaction, status) VALUES ($1, $2, $3, $4, $5, 'SIGNED')`,
      [theirs.chainId.toString(), theirs.address, theirs.nonce.toString(), theirs.hash, Buffer.from(theirs.rawTransaction)],
    );
    const ours = fillers.record(signed());
    await new Promise((r) => setTimeout(r, 200)); // ours now waits on their insert
    await other.commit();
    expect(await ours).toMatchObject({ hash: theirs.hash, nonce: 0n });
  });

  test("replace that loses the swap returns the winner's filler, not the one it meant to replace", async () => {
    const first = await fillers.record(signed());
    const winner = signed();
    const other = await uncommitted(`UPDATE nonce_filler SET hash = $2, raw_transaction = $3 WHERE hash = $1`, [first.hash, winner.hash, Buffer.from(winner.rawTransaction)]);
    const ours = fillers.replace(first.hash, signed());
    await new Promise((r) => setTimeout(r, 200)); // ours now waits on their row lock
    await other.commit();
    expect((await ours).hash).toBe(winner.hash);
  });
});
