import { JsonRpcProvider } from "ethers";
import { createWalletRepository } from "@relay/db";
import { addChain, createProjectFixture, deployRecorder, fund, startAnvil, waitForStatus, type AnvilInstance, type DeployedRecorder, type ProjectFixture } from "@relay/testing";
import { post, startHarness, type Harness } from "../support/harness";

/**
 * sendTransaction's optional fields beyond the contract (docs/transactions.md, "Optional request
 * fields"), on the real gateway, tx-worker, Postgres and anvil.
 */
describe("sendTransaction's optional request fields", () => {
  let h: Harness;
  let anvil: AnvilInstance;
  let recorder: DeployedRecorder;
  let rpc: JsonRpcProvider;
  let project: ProjectFixture;
  let other: ProjectFixture;

  const setOrder = (id: number) => ({
    functionSignature: "setOrder((uint256 id, address owner, uint8[] flags) order)",
    args: { order: { id, owner: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", flags: [] } },
  });
  const send = (body: Record<string, unknown>) =>
    post(h.baseUrl, "/transact/sendTransaction", { projectId: project.projectId, chainId: anvil.chainId, contractAddress: recorder.address, ...body }, project.apiKey);
  const sendAndWait = async (body: Record<string, unknown>) => {
    const res = await send(body);
    expect([res.status, res.body.message]).toEqual([200, undefined]);
    return waitForStatus(h.baseUrl, project.apiKey, project.projectId, res.body.transactionId as string);
  };

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 31_871, port: 18_701 });
    recorder = await deployRecorder(anvil.rpcUrl);
    rpc = new JsonRpcProvider(anvil.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
    h = await startHarness("request-fields");
    await addChain(h.db, anvil);
    project = await createProjectFixture(h.db, h.kek, { wallets: 3 });
    other = await createProjectFixture(h.db, h.kek, { wallets: 1 });
    await fund(anvil.rpcUrl, [...project.wallets, ...other.wallets].map((w) => w.address));
    await h.startTxWorker();
  });
  afterAll(async () => {
    await h?.close();
    rpc?.destroy();
    recorder?.provider.destroy();
    await anvil?.stop();
  });

  it("a payable call moves exactly `value` wei to the contract", async () => {
    const value = "123456789012345678";
    const before = await rpc.getBalance(recorder.address);
    const tx = await sendAndWait({ functionSignature: "deposit(uint256 tag)", args: { tag: 7 }, value });
    expect(tx.status).toBe("CONFIRMED");
    expect((await rpc.getBalance(recorder.address)) - before).toBe(BigInt(value));
    expect((await rpc.getTransaction(tx.hash!))!.value).toBe(BigInt(value));
    expect(await recorder.contract.getFunction("totalDeposited")()).toBe(BigInt(value));
  });

  it("without `value` a payable call sends nothing, as before", async () => {
    const before = await rpc.getBalance(recorder.address);
    const tx = await sendAndWait({ functionSignature: "deposit(uint256 tag)", args: { tag: 8 }, value: null });
    expect(tx.status).toBe("CONFIRMED");
    expect(await rpc.getBalance(recorder.address)).toBe(before);
  });

  it("a value the sending wallet cannot pay pauses the transaction instead of sending it", async () => {
    const wallet = project.wallets[2]!.address;
    const res = await send({ functionSignature: "deposit(uint256 tag)", args: { tag: 9 }, value: (1000n * 10n ** 18n).toString(), fromAddress: wallet });
    expect(res.status).toBe(200);
    const tx = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, res.body.transactionId as string, ["PAUSED"]);
    expect(tx.attempts).toEqual([]);
    expect(tx.error).toMatch(new RegExp(wallet, "i"));
  });

  it("sends from the wallet named in fromAddress, whichever the relay would have picked", async () => {
    for (const wallet of project.wallets.slice(0, 2)) {
      for (let i = 0; i < 3; i++) {
        // Lower case: any case of one of the project's addresses names it.
        const tx = await sendAndWait({ ...setOrder(100 + i), fromAddress: wallet.address.toLowerCase() });
        expect(tx.status).toBe("CONFIRMED");
        expect(tx.from).toBe(wallet.address);
        expect((await rpc.getTransaction(tx.hash!))!.from).toBe(wallet.address);
      }
    }
  });

  it("answers 400 for a fromAddress of another project, of no project, or of an inactive wallet, and stores nothing", async () => {
    const countBefore = await h.db.transaction.count({ where: { projectId: project.projectId } });
    const foreign = await send({ ...setOrder(1), fromAddress: other.wallets[0]!.address });
    expect([foreign.status, foreign.body.message]).toEqual([400, `fromAddress ${other.wallets[0]!.address} is not a wallet of project ${project.projectId}`]);
    const unknown = await send({ ...setOrder(1), fromAddress: "0x000000000000000000000000000000000000dEaD" });
    expect([unknown.status, unknown.body.message]).toEqual([400, `fromAddress 0x000000000000000000000000000000000000dEaD is not a wallet of project ${project.projectId}`]);

    const wallets = createWalletRepository(h.db);
    const inactive = project.wallets[1]!.address;
    await wallets.setActive(project.projectId, inactive, false);
    try {
      const res = await send({ ...setOrder(1), fromAddress: inactive });
      expect([res.status, res.body.message]).toEqual([400, `fromAddress ${inactive} is not active; activate it or name another wallet`]);
    } finally {
      await wallets.setActive(project.projectId, inactive, true);
    }
    expect(await h.db.transaction.count({ where: { projectId: project.projectId } })).toBe(countBefore);
  });

  it("signs the gasLimit the request gives as it is, instead of the estimate", async () => {
    const tx = await sendAndWait({ ...setOrder(200), gasLimit: 345_678 });
    expect(tx.status).toBe("CONFIRMED");
    expect(tx.attempts.map((a) => a.gasLimit)).toEqual(["345678"]);
    expect((await rpc.getTransaction(tx.hash!))!.gasLimit).toBe(345_678n);

    // Still simulated: a call that reverts is INVALID, with no nonce taken, whatever its gas limit.
    const reverts = await sendAndWait({ functionSignature: "alwaysReverts(uint256 x)", args: { x: 1 }, gasLimit: 500_000 });
    expect([reverts.status, reverts.nonce, reverts.attempts]).toEqual(["INVALID", null, []]);
  });

  it("never prices an attempt above the request's maxFeePerGas while the market is under it", async () => {
    const block = await rpc.getBlock("latest");
    const tip = BigInt((await rpc.send("eth_maxPriorityFeePerGas", [])) as string);
    // Above what is needed now (base fee + tip), below the relay's usual 2 × base fee + tip.
    const cap = block!.baseFeePerGas! + tip + 1n;
    const tx = await sendAndWait({ ...setOrder(300), maxFeePerGas: cap.toString() });
    expect(tx.status).toBe("CONFIRMED");
    expect(tx.attempts.map((a) => BigInt(a.maxFeePerGas!))).toEqual([cap]);
    expect((await rpc.getTransaction(tx.hash!))!.maxFeePerGas).toBe(cap);
  });

  it("stores the fields as given, and none when they are absent", async () => {
    const expiresAt = new Date(Date.now() + 3_600_000);
    const res = await send({ ...setOrder(400), value: "5", fromAddress: project.wallets[0]!.address, gasLimit: 300_000, maxFeePerGas: "900000000000", expiresAt: expiresAt.toISOString() });
    expect(res.status).toBe(200);
    const row = await h.db.transaction.findFirstOrThrow({ where: { projectId: project.projectId, id: res.body.transactionId as string } });
    expect([row.valueWei.toString(), row.requestedFromAddress, row.requestedGasLimit, row.maxFeePerGasWei?.toString(), row.expiresAt?.toISOString()]).toEqual([
      "5",
      project.wallets[0]!.address,
      300_000n,
      "900000000000",
      expiresAt.toISOString(),
    ]);
    const plain = await send(setOrder(401));
    const bare = await h.db.transaction.findFirstOrThrow({ where: { projectId: project.projectId, id: plain.body.transactionId as string } });
    expect([bare.valueWei.toString(), bare.requestedFromAddress, bare.requestedGasLimit, bare.maxFeePerGasWei, bare.expiresAt]).toEqual(["0", null, null, null, null]);
    await waitForStatus(h.baseUrl, project.apiKey, project.projectId, res.body.transactionId as string);
    await waitForStatus(h.baseUrl, project.apiKey, project.projectId, plain.body.transactionId as string);
  });

  it.each([
    ["a negative value", { value: "-1" }, "value must not be negative"],
    ["a value with a fraction", { value: "1.5" }, "value must be an integer number of wei between 0 and 2^256-1, as a decimal string"],
    ["a value past 2^256-1", { value: (1n << 256n).toString() }, "value must be an integer number of wei between 0 and 2^256-1, as a decimal string"],
    ["a value as a JSON number", { value: 5 }, "value must be an integer number of wei, as a decimal string"],
    ["a fromAddress that is not an address", { fromAddress: "0x1234" }, "fromAddress must be a 0x-prefixed 20-byte hex address"],
    ["a gasLimit below a transfer's", { gasLimit: 20_999 }, "gasLimit must be at least 21000"],
    ["a gasLimit above a block's", { gasLimit: 30_000_001 }, "gasLimit must be at most 30000000"],
    ["a gasLimit with a fraction", { gasLimit: 50_000.5 }, "gasLimit must be an integer"],
    ["a gasLimit as a string", { gasLimit: "50000" }, "gasLimit must be an integer"],
    ["a maxFeePerGas that is not an integer", { maxFeePerGas: "ten" }, "maxFeePerGas must be an integer number of wei between 0 and 2^256-1, as a decimal string"],
    ["a maxFeePerGas of 0", { maxFeePerGas: "0" }, "maxFeePerGas must be above 0"],
    ["an expiresAt in the past", { expiresAt: "2020-01-01T00:00:00Z" }, "expiresAt is in the past"],
    ["an expiresAt that is no date", { expiresAt: "tomorrow" }, "expiresAt must be an ISO 8601 date-time with a time zone, e.g. 2030-01-01T00:00:00Z"],
    ["an expiresAt without a time zone", { expiresAt: "2030-01-01T00:00:00" }, "expiresAt must be an ISO 8601 date-time with a time zone, e.g. 2030-01-01T00:00:00Z"],
  ])("answers 400 naming the field for %s", async (_name, fields, message) => {
    const res = await send({ ...setOrder(1), ...fields });
    expect([res.status, res.body.message]).toEqual([400, message]);
  });
});
