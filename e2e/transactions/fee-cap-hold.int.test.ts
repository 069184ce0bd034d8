import { JsonRpcProvider, toBeHex } from "ethers";
import { addChain, createProjectFixture, deployRecorder, fund, readTransaction, startAnvil, waitForStatus, type AnvilInstance, type DeployedRecorder, type ProjectFixture, type TransactionView } from "@relay/testing";
import { post, startHarness, type Harness } from "../support/harness";

const gwei = (n: number) => BigInt(n) * 1_000_000_000n;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Fee caps that hold instead of strand (docs/transactions.md, "Fee caps"): a transaction whose
 * maxFeePerGas is below the market waits unsigned and without a nonce, says so once in its history
 * and its events, lets the wallet's later transactions by, and goes out once fees fall; one whose
 * expiresAt passes meanwhile ends EXPIRED, never broadcast.
 */
describe("a fee cap below the market holds the transaction", () => {
  let h: Harness;
  let anvil: AnvilInstance;
  let recorder: DeployedRecorder;
  let rpc: JsonRpcProvider;
  let project: ProjectFixture;
  let wallet: string;

  const send = (body: Record<string, unknown>) =>
    post(
      h.baseUrl,
      "/transact/sendTransaction",
      {
        projectId: project.projectId,
        chainId: anvil.chainId,
        contractAddress: recorder.address,
        functionSignature: "setOrder((uint256 id, address owner, uint8[] flags) order)",
        ...body,
      },
      project.apiKey,
    );
  const order = (id: number) => ({ args: { order: { id, owner: wallet, flags: [] } } });
  const read = (id: string) => readTransaction(h.baseUrl, project.apiKey, project.projectId, id);
  const until = async (id: string, done: (tx: TransactionView) => boolean, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const tx = await read(id);
      if (done(tx)) return tx;
      if (Date.now() > deadline) throw new Error(`transaction ${id} never got there: ${JSON.stringify(tx)}`);
      await sleep(50);
    }
  };
  /** The base fee of the block mined now (anvil lowers it by 12.5 % a block after, as blocks are empty). */
  const setBaseFee = async (fee: bigint) => {
    await rpc.send("anvil_setNextBlockBaseFeePerGas", [toBeHex(fee)]);
    await rpc.send("evm_mine", []);
  };
  const held = (tx: TransactionView) => tx.history.some((c) => c.status === "PENDING" && /^held: the market's fee is above its maxFeePerGas/.test(c.reason ?? ""));
  const events = async (id: string) =>
    (await h.db.event.findMany({ where: { projectId: project.projectId, subject: id }, orderBy: { createdAt: "asc" } })).map(
      (e) => (e.payload as { data: { status: string; previousStatus: string | null; reason: string | null } }).data,
    );

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 31_872, port: 18_702 });
    recorder = await deployRecorder(anvil.rpcUrl);
    rpc = new JsonRpcProvider(anvil.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
    h = await startHarness("fee-cap-hold");
    await addChain(h.db, anvil);
    project = await createProjectFixture(h.db, h.kek, { wallets: 1 });
    wallet = project.wallets[0]!.address;
    await fund(anvil.rpcUrl, [wallet], "1000");
    await h.startTxWorker();
  });
  afterAll(async () => {
    await h?.close();
    rpc?.destroy();
    recorder?.provider.destroy();
    await anvil?.stop();
  });

  it("waits unsigned with no nonce while the market is above its maxFeePerGas, evented once; the wallet's later transaction goes by; it goes out once the base fee falls", async () => {
    await setBaseFee(gwei(50));
    const cap = gwei(10);
    const capped = await send({ ...order(1), maxFeePerGas: cap.toString() });
    expect(capped.status).toBe(200);
    const id = capped.body.transactionId as string;
    const waiting = await until(id, held);
    expect([waiting.status, waiting.nonce, waiting.attempts]).toEqual(["PENDING", null, []]);
    expect(waiting.history.map((c) => c.status)).toEqual(["PENDING", "PENDING"]);
    expect(waiting.history[1]!.reason).toMatch(/10000000000 wei per gas.*no nonce taken/);
    // Its event: a TransactionStatusChange from PENDING to PENDING with the reason.
    expect(await events(id)).toEqual([
      expect.objectContaining({ status: "PENDING", previousStatus: null }),
      expect.objectContaining({ status: "PENDING", previousStatus: "PENDING", reason: waiting.history[1]!.reason }),
    ]);

    // The same wallet's next transaction, without a cap, is not blocked behind it.
    const nonceBefore = await rpc.getTransactionCount(wallet, "latest");
    const later = await send(order(2));
    const laterTx = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, later.body.transactionId as string);
    expect(laterTx.status).toBe("CONFIRMED");
    expect(laterTx.nonce).toBe(String(nonceBefore));
    expect((await recorder.contract.getFunction("lastOrder")()).id).toBe(2n);

    // Still held, and the note is not repeated while it waits (base fee still far above 10 gwei).
    await sleep(1500);
    const still = await read(id);
    expect([still.status, still.nonce, still.attempts, still.history.length]).toEqual(["PENDING", null, [], 2]);
    expect(await events(id)).toHaveLength(2);

    // Fees fall: it is signed within its cap, sent and confirmed, at the wallet's next nonce.
    await setBaseFee(gwei(1));
    const tx = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id);
    expect(tx.status).toBe("CONFIRMED");
    expect(tx.nonce).toBe(String(nonceBefore + 1));
    expect(tx.history.map((c) => c.status)).toEqual(["PENDING", "PENDING", "SUBMITTED", "CONFIRMED"]);
    expect(tx.attempts).toHaveLength(1);
    expect(BigInt(tx.attempts[0]!.maxFeePerGas!)).toBeLessThanOrEqual(cap);
    expect((await rpc.getTransaction(tx.hash!))!.maxFeePerGas).toBeLessThanOrEqual(cap);
    expect((await recorder.contract.getFunction("lastOrder")()).id).toBe(1n);
  });

  it("ends EXPIRED, never signed nor broadcast, when its expiresAt passes while it is held", async () => {
    await setBaseFee(gwei(50));
    const countersBefore = await h.db.walletNonce.findMany({ where: { chainId: BigInt(anvil.chainId), address: wallet } });
    const onChainBefore = await rpc.getTransactionCount(wallet, "pending");
    const res = await send({ ...order(3), maxFeePerGas: gwei(10).toString(), expiresAt: new Date(Date.now() + 3_000).toISOString() });
    expect(res.status).toBe(200);
    const id = res.body.transactionId as string;
    await until(id, held);

    const tx = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id, ["EXPIRED"], 20_000);
    expect([tx.status, tx.nonce, tx.hash, tx.attempts]).toEqual(["EXPIRED", null, null, []]);
    expect(tx.history.map((c) => c.status)).toEqual(["PENDING", "PENDING", "EXPIRED"]);
    expect(tx.error).toMatch(/^expiresAt .* passed before it was sent; nothing was broadcast$/);
    expect((await events(id)).map((e) => [e.previousStatus, e.status])).toEqual([
      [null, "PENDING"],
      ["PENDING", "PENDING"],
      ["PENDING", "EXPIRED"],
    ]);
    // No nonce was taken for it, and nothing of the wallet's went to the chain.
    expect(await h.db.walletNonce.findMany({ where: { chainId: BigInt(anvil.chainId), address: wallet } })).toEqual(countersBefore);
    expect(await rpc.getTransactionCount(wallet, "pending")).toBe(onChainBefore);

    // Fees fall: it stays EXPIRED, never sent late.
    await setBaseFee(gwei(1));
    await sleep(1000);
    expect((await read(id)).status).toBe("EXPIRED");
    expect(await rpc.getTransactionCount(wallet, "pending")).toBe(onChainBefore);
    expect((await recorder.contract.getFunction("lastOrder")()).id).not.toBe(3n);
  });

  it("a chain's fee cap below the market holds a transaction without a cap of its own the same way", async () => {
    await h.db.chain.update({ where: { chainId: BigInt(anvil.chainId) }, data: { maxFeePerGasCapWei: gwei(10).toString() } });
    // A worker reads chains again every 30 s; a new one reads the cap at once.
    await h.stopTxWorker();
    await h.startTxWorker();
    {
      await setBaseFee(gwei(50));
      const res = await send(order(4));
      const id = res.body.transactionId as string;
      const waiting = await until(id, (tx) => tx.history.some((c) => /^held: the market's fee is above the chain's fee cap/.test(c.reason ?? "")));
      expect([waiting.status, waiting.nonce, waiting.attempts]).toEqual(["PENDING", null, []]);
      await setBaseFee(gwei(1));
      const tx = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id);
      expect(tx.status).toBe("CONFIRMED");
      expect(BigInt(tx.attempts[0]!.maxFeePerGas!)).toBeLessThanOrEqual(gwei(10));
    }
  });
});
