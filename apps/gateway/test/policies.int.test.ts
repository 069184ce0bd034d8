import { getAddress } from "ethers";
import { createChainRepository, createPolicyRepository, createPool } from "@relay/db";
import { createProjectFixture, testDatabaseUrl, type ProjectFixture } from "@relay/testing";
import { post, startHarness, type Harness } from "./harness";

/**
 * Each policy of docs/policies.md through the real gateway on Postgres and Redis: it refuses what
 * it should with a 403 naming the policy and stores nothing, and lets the rest through. No worker
 * runs; rows are moved by hand where a test needs a transaction final.
 */
const CHAIN = 31_951;
const OTHER_CHAIN = 31_952;
/** A chain with a fee cap, for gas budgets of requests without maxFeePerGas. */
const CAPPED_CHAIN = 31_953;
/** As the gateway gives them back (checksummed). */
const CONTRACT = getAddress("0x00000000000000000000000000000000000000c1");
const OTHER_CONTRACT = getAddress("0x00000000000000000000000000000000000000c2");
/** setX(uint256)'s selector. */
const SET_X = "0x4018d9aa";

describe("project policies on sendTransaction", () => {
  let h: Harness;
  let sql: ReturnType<typeof createPool>;

  const rows = async (projectId: string) =>
    (
      await sql.query<{ id: string; value: string; requested: string | null; reserved: string | null }>(
        `SELECT id, value_wei::text AS value, requested_from_address AS requested, gas_reserved_wei::text AS reserved FROM transaction WHERE project_id = $1 ORDER BY created_at`,
        [projectId],
      )
    ).rows;
  const send = (p: ProjectFixture, fields: Record<string, unknown> = {}) =>
    post(h.baseUrl, "/transact/sendTransaction", { projectId: p.projectId, chainId: CHAIN, contractAddress: CONTRACT, functionSignature: "ping()", ...fields }, p.apiKey);
  const setPolicy = (p: ProjectFixture, policy: object) => createPolicyRepository(h.db).set(p.projectId, policy as never);

  /** Sends `fields`, expects a 403 with exactly `message`, and that the project's rows did not change. */
  const refused = async (p: ProjectFixture, fields: Record<string, unknown>, message: string) => {
    const before = (await rows(p.projectId)).length;
    const res = await send(p, fields);
    expect([res.status, res.body.message]).toEqual([403, message]);
    expect((await rows(p.projectId)).length).toBe(before);
  };
  const accepted = async (p: ProjectFixture, fields: Record<string, unknown> = {}) => {
    const res = await send(p, fields);
    expect([res.status, res.body.message]).toEqual([200, undefined]);
    return res.body.transactionId as string;
  };

  beforeAll(async () => {
    h = await startHarness("policies");
    sql = createPool({ url: testDatabaseUrl() });
    const chains = createChainRepository(h.db);
    const chain = { rpcUrls: ["http://127.0.0.1:9"], confirmations: 1, lowBalanceThresholdWei: 0n, blockTimeMs: 1000, stuckAfterSeconds: 30 };
    await chains.upsert({ ...chain, chainId: BigInt(CHAIN), name: "policies" });
    await chains.upsert({ ...chain, chainId: BigInt(OTHER_CHAIN), name: "policies-other" });
    await chains.upsert({ ...chain, chainId: BigInt(CAPPED_CHAIN), name: "policies-capped", maxFeePerGasCapWei: 50n });
  });
  afterAll(async () => {
    await sql?.end();
    await h?.close();
  });

  it("stores every send of a project without a policy, as before", async () => {
    const p = await createProjectFixture(h.db, h.kek);
    await accepted(p, { value: "1000000" });
    await accepted(p, { chainId: OTHER_CHAIN, contractAddress: OTHER_CONTRACT });
    expect(await rows(p.projectId)).toHaveLength(2);
  });

  it("contract allowlist by address: the listed contract on its chain, nothing else, and no contract on a chain without an entry", async () => {
    const p = await createProjectFixture(h.db, h.kek);
    await setPolicy(p, { contracts: { [CHAIN]: [{ address: CONTRACT.toLowerCase() }] } });
    await accepted(p);
    await accepted(p, { functionSignature: "setX(uint256 x)", args: { x: "1" } });
    await refused(
      p,
      { contractAddress: OTHER_CONTRACT },
      `policy contracts: contract ${OTHER_CONTRACT} is not on project ${p.projectId}'s allowlist for chain ${CHAIN}; an operator allows it with \`npm run relay -- policies allow-contract --project ${p.projectId} --chain ${CHAIN} --address ${OTHER_CONTRACT}\``,
    );
    await refused(
      p,
      { chainId: OTHER_CHAIN },
      `policy contracts: project ${p.projectId}'s contract allowlist has no entry for chain ${OTHER_CHAIN}, so no contract may be called on it; an operator allows one with \`npm run relay -- policies allow-contract --project ${p.projectId} --chain ${OTHER_CHAIN} --address ${CONTRACT}\``,
    );
  });

  it("functions by signature and by selector: only those, on that contract", async () => {
    const p = await createProjectFixture(h.db, h.kek);
    await setPolicy(p, { contracts: { [CHAIN]: [{ address: CONTRACT, functions: ["transfer(address to, uint256 amount)"] }, { address: OTHER_CONTRACT, functions: [SET_X] }] } });
    await accepted(p, { functionSignature: "function transfer(address recipient, uint256 value)", args: { recipient: CONTRACT, value: "5" } });
    await accepted(p, { contractAddress: OTHER_CONTRACT, functionSignature: "setX(uint256 value)", args: { value: "7" } });
    await refused(
      p,
      { functionSignature: "setX(uint256 x)", args: { x: "1" } },
      `policy contracts: function setX(uint256 x) (selector ${SET_X}) is not allowed on contract ${CONTRACT} of chain ${CHAIN}; an operator allows it with \`npm run relay -- policies allow-contract --project ${p.projectId} --chain ${CHAIN} --address ${CONTRACT} --function "setX(uint256 x)"\``,
    );
    const other = await send(p, { contractAddress: OTHER_CONTRACT, functionSignature: "transfer(address to, uint256 amount)", args: { to: CONTRACT, amount: "5" } });
    expect(other.status).toBe(403);
    expect(other.body.message).toContain("(selector 0xa9059cbb) is not allowed on contract");
    expect(await rows(p.projectId)).toHaveLength(2);
  });

  it("value per transaction: up to the limit, not a wei more", async () => {
    const p = await createProjectFixture(h.db, h.kek);
    await setPolicy(p, { valuePerTransactionWei: "1000" });
    await accepted(p, { value: "1000" });
    await accepted(p);
    await refused(
      p,
      { value: "1001" },
      `policy valuePerTransactionWei: value 1001 wei is above project ${p.projectId}'s limit of 1000 wei per transaction; send less, or an operator raises it with \`npm run relay -- policies limits --project ${p.projectId} --value-per-tx <wei>\``,
    );
  });

  it("value per wallet per rolling day: counts what moved or may move in the last 24 hours, per wallet", async () => {
    const p = await createProjectFixture(h.db, h.kek);
    const wallet = p.wallets[0]!.address;
    await setPolicy(p, { valuePerWalletPerDayWei: "10" });
    const first = await accepted(p, { value: "4", fromAddress: wallet });
    await accepted(p, { value: "4" });
    // Bound to the one wallet, as the worker will send it.
    expect((await rows(p.projectId)).map((r) => r.requested)).toEqual([wallet, wallet]);
    await refused(
      p,
      { value: "3" },
      `policy valuePerWalletPerDayWei: wallet ${wallet} on chain ${CHAIN} has 2 wei left of its value limit of 10 wei per rolling 24 hours, and this transaction's value is 3 wei; wait for earlier transactions to leave the 24-hour window, or an operator raises the limit with \`npm run relay -- policies limits --project ${p.projectId} --value-per-day <wei>\``,
    );
    await accepted(p, { value: "2" });
    await refused(p, { value: "1", fromAddress: wallet }, expect.stringContaining(`wallet ${wallet} on chain ${CHAIN} has 0 wei left`) as unknown as string);
    // Another chain is another budget.
    await accepted(p, { value: "10", chainId: OTHER_CHAIN });
    // A transaction that ended without moving value no longer counts...
    await sql.query(`UPDATE transaction SET status = 'INVALID' WHERE project_id = $1 AND id = $2`, [p.projectId, first]);
    await accepted(p, { value: "4" });
    // ...nor one created more than 24 hours ago.
    await sql.query(`UPDATE transaction SET created_at = now() - interval '25 hours' WHERE project_id = $1 AND value_wei = 4`, [p.projectId]);
    await accepted(p, { value: "8" });
    await refused(p, { value: "1" }, expect.stringContaining("has 0 wei left of its value limit of 10 wei") as unknown as string);
  });

  it("binds a send without fromAddress to the project's usable wallet with the most room, and refuses when none has room", async () => {
    const p = await createProjectFixture(h.db, h.kek, { wallets: 2 });
    const [a, b] = p.wallets.map((w) => w.address) as [string, string];
    await setPolicy(p, { valuePerWalletPerDayWei: "10" });
    await accepted(p, { value: "7", fromAddress: a });
    await accepted(p, { value: "5" });
    await accepted(p, { value: "3" });
    // 3 left in a, 5 in b: b.
    expect((await rows(p.projectId)).map((r) => r.requested)).toEqual([a, b, b]);
    await refused(
      p,
      { value: "6" },
      `policy valuePerWalletPerDayWei: no wallet of the project on chain ${CHAIN} has room: the most any has is 3 wei left of its value limit of 10 wei per rolling 24 hours, and this transaction's value is 6 wei; wait for earlier transactions to leave the 24-hour window, or an operator raises the limit with \`npm run relay -- policies limits --project ${p.projectId} --value-per-day <wei>\``,
    );
    // A deactivated wallet is never chosen.
    await sql.query(`UPDATE wallet SET is_active = false WHERE address = $1`, [a]);
    await refused(p, { value: "3" }, expect.stringContaining(`wallet ${b} on chain ${CHAIN} has 2 wei left`) as unknown as string);
    await sql.query(`UPDATE wallet SET is_active = true WHERE address = $1`, [a]);
    await accepted(p, { value: "3" });
    expect((await rows(p.projectId)).map((r) => r.requested)).toEqual([a, b, b, a]);
  });

  it("gas budget: refuses a send it cannot bound, reserves gasLimit × fee ceiling, and counts a final transaction's fee paid instead", async () => {
    const p = await createProjectFixture(h.db, h.kek);
    await setPolicy(p, { gasPerWalletPerDayWei: "2500000" });
    const unbounded = (missing: string, extra: string) =>
      `policy gasPerWalletPerDayWei: project ${p.projectId} has a gas budget per wallet, so a transaction must say the most it can pay: pass ${missing} (gasLimit and maxFeePerGas${extra}); or an operator removes the budget with \`npm run relay -- policies limits --project ${p.projectId} --gas-per-day none\``;
    await refused(p, { maxFeePerGas: "10" }, unbounded("gasLimit", ""));
    await refused(p, { gasLimit: 100_000 }, unbounded("maxFeePerGas", `; chain ${CHAIN} has no fee cap to use instead`));
    const first = await accepted(p, { gasLimit: 100_000, maxFeePerGas: "10" });
    // The chain's cap stands in for a missing maxFeePerGas, and bounds a higher one.
    await accepted(p, { chainId: CAPPED_CHAIN, gasLimit: 21_000 });
    await accepted(p, { chainId: CAPPED_CHAIN, gasLimit: 21_000, maxFeePerGas: "1000" });
    expect((await rows(p.projectId)).map((r) => r.reserved)).toEqual(["1000000", "1050000", "1050000"]);
    await accepted(p, { gasLimit: 100_000, maxFeePerGas: "10" });
    await refused(
      p,
      { gasLimit: 100_000, maxFeePerGas: "10" },
      `policy gasPerWalletPerDayWei: wallet ${p.wallets[0]!.address} on chain ${CHAIN} has 500000 wei left of its gas limit of 2500000 wei per rolling 24 hours, and this transaction can pay up to 1000000 wei in fees (gasLimit × max fee per gas); wait for earlier transactions to leave the 24-hour window, or an operator raises the limit with \`npm run relay -- policies limits --project ${p.projectId} --gas-per-day <wei>\``,
    );
    // Final: the fee its receipt says was paid counts, not its reservation.
    await sql.query(`UPDATE transaction SET status = 'CONFIRMED', from_address = requested_from_address, receipt_fee_wei = 21000 WHERE project_id = $1 AND id = $2`, [p.projectId, first]);
    await accepted(p, { gasLimit: 100_000, maxFeePerGas: "10" });
    // 21000 + 1000000 + 1000000 used: 479000 left.
    await refused(p, { gasLimit: 100_000, maxFeePerGas: "10" }, expect.stringContaining("has 479000 wei left of its gas limit") as unknown as string);
  });

  it("50 concurrent sends against a daily value limit that allows 10: exactly 10 accepted and stored, 40 refused", async () => {
    const p = await createProjectFixture(h.db, h.kek, { wallets: 1 });
    await setPolicy(p, { valuePerWalletPerDayWei: "10" });
    const answers = await Promise.all(Array.from({ length: 50 }, () => send(p, { value: "1" })));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 403)).toHaveLength(40);
    const stored = await rows(p.projectId);
    expect(stored).toHaveLength(10);
    expect(new Set(stored.map((r) => r.id))).toEqual(new Set(answers.filter((a) => a.status === 200).map((a) => a.body.transactionId)));
  });

  it("50 concurrent sends against a gas budget that allows 10, spread over two wallets: exactly 10 accepted and stored", async () => {
    const p = await createProjectFixture(h.db, h.kek, { wallets: 2 });
    await setPolicy(p, { gasPerWalletPerDayWei: "5000000" });
    const answers = await Promise.all(Array.from({ length: 50 }, () => send(p, { gasLimit: 100_000, maxFeePerGas: "10" })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(10);
    expect(answers.filter((a) => a.status === 403)).toHaveLength(40);
    const stored = await rows(p.projectId);
    expect(stored).toHaveLength(10);
    expect(stored.filter((r) => r.requested === p.wallets[0]!.address)).toHaveLength(5);
  });

  it("GET /transact/project/{projectId}/policy: the project's policy, null without one, 403 for another project's key", async () => {
    const p = await createProjectFixture(h.db, h.kek);
    const q = await createProjectFixture(h.db, h.kek);
    const get = (projectId: string, key: string) => fetch(`${h.baseUrl}/transact/project/${projectId}/policy`, { headers: { authorization: `Bearer ${key}` } });
    expect(await (await get(p.projectId, p.apiKey)).json()).toEqual({ projectId: p.projectId, policy: null, updatedAt: null });
    const policy = { contracts: { [CHAIN]: [{ address: CONTRACT, functions: [SET_X] }] }, valuePerTransactionWei: "5" };
    await setPolicy(p, policy);
    const res = await get(p.projectId, p.apiKey);
    const body = (await res.json()) as Record<string, unknown>;
    expect([res.status, body.projectId, body.policy]).toEqual([200, p.projectId, policy]);
    expect(typeof body.updatedAt).toBe("string");
    const theirs = await get(p.projectId, q.apiKey);
    expect([theirs.status, ((await theirs.json()) as { message: string }).message]).toEqual([403, `This API key does not belong to project ${p.projectId}`]);
    const bad = await get("not-a-uuid", p.apiKey);
    expect([bad.status, ((await bad.json()) as { message: string }).message]).toEqual([400, "projectId in the path must be a UUID"]);
  });
});
