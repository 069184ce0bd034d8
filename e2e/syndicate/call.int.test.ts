import { Wallet } from "ethers";
import { createChainRepository } from "@relay/db";
import { addChain, ANVIL_FUNDED_KEY, createProjectFixture, deployRecorder, startAnvil, type AnvilInstance, type ProjectFixture } from "@relay/testing";
import { post, startHarness, type Harness } from "../support/harness";
import { downReceiver } from "../support/webhook-receiver";

describe("POST /transact/call: a read-only call with its decoded result", () => {
  let h: Harness;
  let anvil: AnvilInstance;
  let recorder: Awaited<ReturnType<typeof deployRecorder>>;
  let project: ProjectFixture;
  let down: Awaited<ReturnType<typeof downReceiver>>;
  const DOWN_CHAIN = 18_402;
  const owner = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
  const transfers = [
    { to: owner, amount: "1" },
    { to: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", amount: "340282366920938463463374607431768211455" },
  ];

  const call = (body: Record<string, unknown>, apiKey = project.apiKey) =>
    post(h.baseUrl, "/transact/call", { chainId: anvil.chainId, contractAddress: recorder.address, ...body }, apiKey);

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 18_401 });
    recorder = await deployRecorder(anvil.rpcUrl);
    const writer = recorder.contract.connect(new Wallet(ANVIL_FUNDED_KEY, recorder.provider)) as typeof recorder.contract;
    await (await writer.getFunction("setTransfers")(transfers)).wait();
    h = await startHarness("syndicate-call");
    await addChain(h.db, anvil);
    down = await downReceiver();
    await createChainRepository(h.db).upsert({ chainId: BigInt(DOWN_CHAIN), name: "down", rpcUrls: [down.url], confirmations: 1, lowBalanceThresholdWei: 0n });
    project = await createProjectFixture(h.db, h.kek, { wallets: 1 });
  });
  afterAll(async () => {
    await h.close();
    await down.close();
    recorder.provider.destroy();
    await anvil.stop();
  });

  it("answers one output's value: a uint256 as a decimal string", async () => {
    const res = await call({ functionSignature: "transferCount() view returns (uint256)" });
    expect(res.status).toBe(200);
    expect(res.body).toBe("2");
  });

  it("answers a named tuple as an object and an array of them as an array, with args by name", async () => {
    const one = await call({ functionSignature: "transferAt(uint256 i) view returns ((address to, uint256 amount) transfer)", args: { i: 1 } });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(transfers[1]);
    const all = await call({ functionSignature: "function allTransfers() external view returns ((address to, uint256 amount)[])" });
    expect(all.body).toEqual(transfers);
  });

  it("answers several outputs as an array, and the raw data when the signature declares none", async () => {
    const pair = await call({ functionSignature: "transferAt(uint256) view returns (address to, uint256 amount)", args: { "0": 0 } });
    expect(pair.body).toEqual([owner, "1"]);
    const raw = await call({ functionSignature: "transferCount()" });
    expect(raw.body).toBe(`0x${"0".repeat(63)}2`);
  });

  it("a revert is a 400 with the contract's reason", async () => {
    const res = await call({ functionSignature: "revertWith(string reason)", args: { reason: "nonce too low, says the contract" } });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("the call reverted: nonce too low, says the contract");
  });

  it("an unknown chain is a 400 naming chainId; bad args and signatures are 400s naming them", async () => {
    const unknown = await call({ chainId: 18_499, functionSignature: "transferCount() view returns (uint256)" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/^chainId 18499 is not configured/);
    const badArg = await call({ functionSignature: "transferAt(uint256 i) view returns (address, uint256)", args: { i: "x" } });
    expect(badArg.status).toBe(400);
    expect(badArg.body.message).toMatch(/^args\.i /);
    const badSignature = await call({ functionSignature: "transferAt(uint257 i)" });
    expect(badSignature.status).toBe(400);
    expect(badSignature.body.message).toMatch(/functionSignature/);
    const badAddress = await call({ contractAddress: "0x12", functionSignature: "transferCount()" });
    expect(badAddress.status).toBe(400);
    expect(badAddress.body.message).toMatch(/^contractAddress /);
    const noContract = await call({ contractAddress: owner, functionSignature: "transferCount() view returns (uint256)" });
    expect(noContract.status).toBe(400);
    expect(noContract.body.message).toMatch(/returned no data: is there a contract at/);
  });

  it("a chain whose RPC endpoints do not answer is a 503 that says so, without the RPC URL", async () => {
    const res = await call({ chainId: DOWN_CHAIN, functionSignature: "transferCount() view returns (uint256)" });
    expect(res.status).toBe(503);
    expect(res.body.message).toMatch(/^the call to chain 18402 (failed|timed out|could not be made): none of its RPC endpoints answered/);
    expect(res.text).not.toContain(down.url);
  }, 20_000);

  it("falls back to the chain's next RPC URL when the first does not answer", async () => {
    const FALLBACK_CHAIN = anvil.chainId;
    await createChainRepository(h.db).upsert({ chainId: BigInt(FALLBACK_CHAIN), name: "fallback", rpcUrls: [down.url, anvil.rpcUrl], confirmations: 1, lowBalanceThresholdWei: 0n });
    try {
      const res = await call({ functionSignature: "transferCount() view returns (uint256)" });
      expect(res.status).toBe(200);
      expect(res.body).toBe("2");
    } finally {
      await addChain(h.db, anvil);
    }
  }, 20_000);

  it("needs an API key", async () => {
    const res = await post(h.baseUrl, "/transact/call", { chainId: anvil.chainId, contractAddress: recorder.address, functionSignature: "transferCount()" });
    expect(res.status).toBe(401);
  });
});
