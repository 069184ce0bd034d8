import { randomInt } from "node:crypto";
import { createChainRepository, createProjectFundingRepository, type Database } from "@relay/db";
import { createProjectFixture } from "@relay/testing";
import { createCliHarness, openTestDatabase, randomKek } from "../cli-harness";

interface FundingView {
  projectId: string;
  chainId: string;
  fundingWallet: string;
  targetBalanceWei: string;
}

describe("relay funding", () => {
  let db: Database;
  let cli: ReturnType<typeof createCliHarness>;
  let chainId: string;
  const kek = randomKek();

  beforeAll(async () => {
    db = openTestDatabase();
    cli = createCliHarness(db, { kek });
    chainId = String(900_000_000 + randomInt(1_000_000_000));
    await createChainRepository(db).upsert({ chainId: BigInt(chainId), name: "funding-test", rpcUrls: ["http://127.0.0.1:1"], confirmations: 1, lowBalanceThresholdWei: 1000n, blockTimeMs: 1000, stuckAfterSeconds: 30 });
  });
  afterAll(async () => {
    await db?.$disconnect();
  });

  it("sets, replaces, lists and removes a project's managed gas on a chain", async () => {
    const operator = await createProjectFixture(db, kek, { wallets: 2 });
    const project = await createProjectFixture(db, kek, { wallets: 1 });
    const [first, second] = operator.wallets.map((w) => w.address) as [string, string];

    const set = await cli.json<FundingView>("funding", "set", "--project", project.projectId, "--chain", chainId, "--wallet", first.toLowerCase(), "--target-wei", "5000");
    expect(set).toMatchObject({ projectId: project.projectId, chainId, fundingWallet: first, targetBalanceWei: "5000" });
    // Set again: replaced, one setting per project and chain.
    await cli.json("funding", "set", "--project", project.projectId, "--chain", chainId, "--wallet", second, "--target-wei", "7000");
    const listed = await cli.json<FundingView[]>("funding", "list", "--project", project.projectId);
    expect(listed).toEqual([expect.objectContaining({ projectId: project.projectId, chainId, fundingWallet: second, targetBalanceWei: "7000" })]);
    expect(await createProjectFundingRepository(db).list(project.projectId)).toEqual([expect.objectContaining({ fundingAddress: second, targetBalanceWei: 7000n })]);
    expect((await cli.run("funding", "list")).stdout).toContain(second);

    expect(await cli.json("funding", "remove", "--project", project.projectId, "--chain", chainId)).toMatchObject({ removed: true });
    expect(await cli.json("funding", "list", "--project", project.projectId)).toEqual([]);
    expect(await cli.fails("funding", "remove", "--project", project.projectId, "--chain", chainId)).toMatch(/has no managed gas on chain/);
  });

  it("refuses what could not work, saying what to do", async () => {
    const operator = await createProjectFixture(db, kek, { wallets: 1 });
    const project = await createProjectFixture(db, kek, { wallets: 1 });
    const wallet = operator.wallets[0]!.address;
    const set = (...args: string[]) => cli.fails("funding", "set", "--project", project.projectId, ...args);

    expect(await set("--chain", "31", "--wallet", wallet, "--target-wei", "5000")).toMatch(/Chain 31 is not configured: add it with `npm run relay -- chains add/);
    expect(await set("--chain", chainId, "--wallet", "0x1234", "--target-wei", "5000")).toMatch(/--wallet must be a 0x address/);
    expect(await set("--chain", chainId, "--wallet", "0x00000000000000000000000000000000000000aa", "--target-wei", "5000")).toMatch(/No wallet 0x0+[aA]{2} in the relay/);
    expect(await set("--chain", chainId, "--wallet", project.wallets[0]!.address, "--target-wei", "5000")).toMatch(/belongs to project .* itself/);
    expect(await set("--chain", chainId, "--wallet", wallet, "--target-wei", "1000")).toMatch(/not above chain \d+'s low-balance threshold \(1000 wei\)/);
    expect(await cli.fails("funding", "set", "--project", "no-such-project", "--chain", chainId, "--wallet", wallet, "--target-wei", "5000")).toMatch(/No project with id or name/);
    expect(await createProjectFundingRepository(db).list(project.projectId)).toEqual([]);
  });
});
