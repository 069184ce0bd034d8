import { parseEther, toBeHex, Transaction, type JsonRpcProvider } from "ethers";
import { createProjectFixture, startRecorderChain, type AnvilInstance, type DeployedRecorder, type ProjectFixture, type RecorderChain } from "@relay/testing";
import { sendTransaction, startHarness, type Harness } from "../support/harness";
import { addChain, readTransaction, setOrderCall, startRpcInterceptor, waitForStatus, type RpcAnswer, type RpcCall } from "@relay/testing";
import { walletOrder } from "@relay/tx-worker";
import { randomUUID } from "node:crypto";

describe("a wallet that cannot pay", () => {
  let h: Harness;
  let chain: RecorderChain;
  let anvil: AnvilInstance;
  let recorder: DeployedRecorder;
  let rpc: JsonRpcProvider;
  let project: ProjectFixture;

  beforeAll(async () => {
    chain = await startRecorderChain({ chainId: 31_221 });
    ({ anvil, recorder } = chain);
    rpc = recorder.provider;
    h = await startHarness("paused-wallet");
    // Below 0.5 ETH a wallet is low: the empty wallet is, the refunded one (1 ETH) is not.
    await addChain(h.db, anvil, { lowBalanceThresholdWei: parseEther("0.5") });
    project = await createProjectFixture(h.db, h.kek, { wallets: 1 }); // a new key: 0 ETH
    await h.startTxWorker();
  });
  afterAll(async () => {
    await h?.close();
    await chain?.stop();
  });

  it("pauses the transaction, naming the wallet, and confirms it by itself once the wallet is funded", async () => {
    const wallet = project.wallets[0]!.address;
    expect(await rpc.getBalance(wallet)).toBe(0n);
    const res = await sendTransaction(h.baseUrl, project, {
      chainId: anvil.chainId,
      contractAddress: recorder.address,
      functionSignature: "setDoc((uint256 id, (address author, bytes32 tag) meta, string title) doc, uint256 version)",
      args: { doc: { id: 5, meta: { author: wallet, tag: `0x${"cd".repeat(32)}` }, title: "paid later" }, version: 2 },
    });
    expect(res.status).toBe(200);
    const id = res.body.transactionId as string;

    const paused = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id, ["PAUSED"]);
    expect(paused.error).toContain(wallet);
    expect(paused.error).toMatch(/holds 0 wei, needs up to [1-9]\d* wei|cannot pay/);
    expect(paused.history.map((c) => c.status)).toEqual(["PENDING", "PAUSED"]);
    expect(paused.history[1]!.reason).toContain(wallet);
    expect(paused.attempts).toEqual([]);
    expect(await rpc.getTransactionCount(wallet)).toBe(0);
    // The pause tells the project at once that the wallet is low (this harness runs no scheduled
    // balance check, so the event can only come from the pause).
    const lowEvents = async () =>
      (await h.db.$queryRawUnsafe<{ data: { walletAddress: string; balance: string } }[]>(
        `SELECT payload->'data' AS data FROM event WHERE event_type = 'WalletBalanceLow' AND payload->'data'->>'walletAddress' = $1`,
        wallet,
      ));
    expect(await lowEvents()).toEqual([{ data: expect.objectContaining({ walletAddress: wallet, balance: "0" }) }]);

    // It stays paused while the wallet is empty (the balance is looked at every couple of seconds).
    await new Promise((r) => setTimeout(r, 2500));
    expect((await readTransaction(h.baseUrl, project.apiKey, project.projectId, id)).status).toBe("PAUSED");

    await rpc.send("anvil_setBalance", [wallet, toBeHex(parseEther("1"))]);
    const tx = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id, ["CONFIRMED", "REVERTED", "INVALID", "FAILED"], 20_000);
    expect(tx.status).toBe("CONFIRMED");
    expect(tx.error).toBeNull();
    expect(tx.history.map((c) => c.status)).toEqual(["PENDING", "PAUSED", "PENDING", "SUBMITTED", "CONFIRMED"]);
    expect(tx.history[2]!.reason).toMatch(/can pay again/);
    expect(tx.from).toBe(wallet);
    expect(tx.nonce).toBe("0");
    expect((await rpc.getTransactionReceipt(tx.hash!))?.from).toBe(wallet);
    expect(await recorder.contract.getFunction("docVersion")(5)).toBe(2n);
    // Each retry of the paused send checked again; the wallet stayed low, so still one event.
    expect(await lowEvents()).toHaveLength(1);
  });

  it("stays PAUSED, without moving back and forth, while the node wants more than the wallet's gas and value (an L2's L1 data fee)", async () => {
    // A node that, as op-geth does, adds a fee of its own to the cost it checks the balance against.
    const surcharge = parseEther("0.5");
    const strict = await startRecorderChain({ chainId: 31_222 });
    const interceptor = await startRpcInterceptor(strict.anvil.rpcUrl, async (call) => {
      if (call.method !== "eth_sendRawTransaction") return undefined;
      const signed = Transaction.from(call.params[0] as string);
      const cost = signed.gasLimit * (signed.maxFeePerGas ?? signed.gasPrice ?? 0n) + signed.value + surcharge;
      const balance = await strict.recorder.provider.getBalance(signed.from!);
      return balance < cost ? { error: { code: -32000, message: `insufficient funds for gas * price + value + l1fee: balance ${balance}, tx cost ${cost}` } } : undefined;
    });
    try {
      await addChain(h.db, { ...strict.anvil, rpcUrl: interceptor.url });
      const owner = await createProjectFixture(h.db, h.kek, { wallets: 1 });
      const wallet = owner.wallets[0]!.address;
      // Enough for the call's gas at any fee this chain asks, not for the node's surcharge.
      await strict.recorder.provider.send("anvil_setBalance", [wallet, toBeHex(parseEther("0.1"))]);
      const res = await sendTransaction(h.baseUrl, owner, {
        chainId: strict.anvil.chainId,
        contractAddress: strict.recorder.address,
        functionSignature: "setDoc((uint256 id, (address author, bytes32 tag) meta, string title) doc, uint256 version)",
        args: { doc: { id: 6, meta: { author: wallet, tag: `0x${"ab".repeat(32)}` }, title: "surcharged" }, version: 3 },
      });
      const id = res.body.transactionId as string;
      const paused = await waitForStatus(h.baseUrl, owner.apiKey, owner.projectId, id, ["PAUSED"]);
      expect(paused.error).toMatch(/l1fee/);

      // The balance looks enough by the transaction's own gas and fees; the node still refuses.
      await new Promise((r) => setTimeout(r, 5000));
      const still = await readTransaction(h.baseUrl, owner.apiKey, owner.projectId, id);
      expect(still.history.map((c) => c.status)).toEqual(["PENDING", "PAUSED"]);

      await strict.recorder.provider.send("anvil_setBalance", [wallet, toBeHex(parseEther("1"))]);
      const tx = await waitForStatus(h.baseUrl, owner.apiKey, owner.projectId, id, ["CONFIRMED", "REVERTED", "INVALID", "FAILED"], 20_000);
      expect(tx.history.map((c) => c.status)).toEqual(["PENDING", "PAUSED", "PENDING", "SUBMITTED", "CONFIRMED"]);
      expect(await strict.recorder.contract.getFunction("docVersion")(6)).toBe(3n);
    } finally {
      await interceptor.close();
      await strict.stop();
    }
  });
  describe("the wallet choice a resume must agree with", () => {
    let strict: RecorderChain;
    /** Answers the calls it is given an answer for; the others go to anvil. */
    let answer: (call: RpcCall) => Promise<RpcAnswer | undefined> = async () => undefined;
    let interceptor: Awaited<ReturnType<typeof startRpcInterceptor>>;

    beforeAll(async () => {
      strict = await startRecorderChain({ chainId: 31_223 });
      interceptor = await startRpcInterceptor(strict.anvil.rpcUrl, (call) => answer(call));
      await addChain(h.db, { ...strict.anvil, rpcUrl: interceptor.url });
    });
    afterAll(async () => {
      await interceptor?.close();
      await strict?.stop();
    });

    /** History after the pause, a few resume checks later (every 2 s). */
    const historyAfterChecks = async (owner: ProjectFixture, id: string) => {
      await waitForStatus(h.baseUrl, owner.apiKey, owner.projectId, id, ["PAUSED"]);
      await new Promise((r) => setTimeout(r, 5000));
      return (await readTransaction(h.baseUrl, owner.apiKey, owner.projectId, id)).history.map((c) => c.status);
    };
    const finalHistory = async (owner: ProjectFixture, id: string) =>
      (await waitForStatus(h.baseUrl, owner.apiKey, owner.projectId, id, ["CONFIRMED", "REVERTED", "INVALID", "FAILED"], 20_000)).history.map((c) => c.status);

    it("stays PAUSED while the other wallet holds enough for the preferred wallet's gas but not for its own", async () => {
      const owner = await createProjectFixture(h.db, h.kek, { wallets: 2 }); // new keys: 0 ETH each
      const [preferred, other] = [owner.wallets[0]!.address, owner.wallets[1]!.address];
      let requestId = randomUUID();
      while (walletOrder(owner.wallets, requestId)[0]!.address !== preferred) requestId = randomUUID();
      // The call costs the other wallet ten times the gas (its own storage slots, say an ERC-20
      // balance written for the first time): stood in for by the proxy.
      answer = async (call) => {
        const from = String((call.params[0] as { from?: string } | undefined)?.from ?? "").toLowerCase();
        if (call.method !== "eth_estimateGas" || from !== other.toLowerCase()) return undefined;
        return { result: toBeHex(BigInt((await strict.recorder.provider.send("eth_estimateGas", call.params)) as string) * 10n) };
      };
      const block = await strict.recorder.provider.getBlock("latest");
      const maxFee = block!.baseFeePerGas! * 2n + BigInt((await strict.recorder.provider.send("eth_maxPriorityFeePerGas", [])) as string);
      await strict.recorder.provider.send("anvil_setBalance", [other, toBeHex(300_000n * maxFee * 3n)]);

      const res = await sendTransaction(h.baseUrl, owner, { requestId, chainId: strict.anvil.chainId, contractAddress: strict.recorder.address, ...setOrderCall(71, preferred) });
      expect(res.status).toBe(200);
      // Resumed on the preferred wallet's gas, the PENDING step simulated the other's and paused
      // again: two status changes and events every check, for as long as the wallets stayed short.
      expect(await historyAfterChecks(owner, requestId)).toEqual(["PENDING", "PAUSED"]);

      await strict.recorder.provider.send("anvil_setBalance", [preferred, toBeHex(parseEther("1"))]);
      expect(await finalHistory(owner, requestId)).toEqual(["PENDING", "PAUSED", "PENDING", "SUBMITTED", "CONFIRMED"]);
    });

    it("stays PAUSED while the node refuses even to simulate for want of funds", async () => {
      const owner = await createProjectFixture(h.db, h.kek, { wallets: 1 });
      const wallet = owner.wallets[0]!.address;
      // Nodes that check the balance when estimating say so before any gas limit is known; the
      // resume then had only the call's value to go by, which any wallet holding a wei passes.
      let refuse = true;
      answer = async (call) =>
        refuse && call.method === "eth_estimateGas" ? { error: { code: -32000, message: "insufficient funds for gas * price + value" } } : undefined;
      await strict.recorder.provider.send("anvil_setBalance", [wallet, toBeHex(parseEther("1"))]);

      const res = await sendTransaction(h.baseUrl, owner, { chainId: strict.anvil.chainId, contractAddress: strict.recorder.address, ...setOrderCall(72, wallet) });
      const id = res.body.transactionId as string;
      expect(await historyAfterChecks(owner, id)).toEqual(["PENDING", "PAUSED"]);

      refuse = false;
      expect(await finalHistory(owner, id)).toEqual(["PENDING", "PAUSED", "PENDING", "SUBMITTED", "CONFIRMED"]);
    });
  });
});
