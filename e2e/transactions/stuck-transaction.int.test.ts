import { JsonRpcProvider, toBeHex, Transaction } from "ethers";
import { createProjectFixture, deployRecorder, startAnvil, startRpcInterceptor, type AnvilInstance, type DeployedRecorder, type ProjectFixture } from "@relay/testing";
import { post, startHarness, type Harness } from "../support/harness";
import { addChain, fund, readTransaction, waitForStatus, type TransactionView } from "@relay/testing";

/** The read endpoint's attempts with both EIP-1559 fields. */
type Attempt = TransactionView["attempts"][number] & { maxPriorityFeePerGas: string | null; createdAt: string };

const STUCK_AFTER_SECONDS = 2;
const setOrder = (id: number) => ({
  functionSignature: "setOrder((uint256 id, address owner, uint8[] flags) order)",
  args: { order: { id, owner: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", flags: [] } },
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A chain whose node does not mine until told to (`evm_mine`), with the Recorder deployed first. */
async function stalledChain(chainId: number) {
  const anvil = await startAnvil({ chainId });
  const recorder = await deployRecorder(anvil.rpcUrl); // needs mining: before automine goes off
  const rpc = new JsonRpcProvider(anvil.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
  await rpc.send("evm_setAutomine", [false]);
  return { anvil, recorder, rpc };
}

/**
 * In front of a node that mines only when told to: the first signed transaction at a nonce goes
 * through; before a second one at the same nonce is forwarded, a block is mined, so the first is
 * mined just as its replacement reaches the node (which then answers "nonce too low"). With
 * `mine: false` the second is answered "nonce too low" without reaching the node: a node behind
 * the same RPC that has already seen the nonce used.
 */
function minesBeforeReplacement(upstream: string, options: { mine: boolean } = { mine: true }) {
  const firstAt = new Map<string, string>();
  return startRpcInterceptor(upstream, async (call) => {
    if (call.method !== "eth_sendRawTransaction") return undefined;
    const tx = Transaction.from(call.params[0] as string);
    const key = `${tx.from}|${tx.nonce}`;
    const first = firstAt.get(key);
    if (!first) firstAt.set(key, tx.hash!);
    else if (first !== tx.hash && !options.mine) return { error: { code: -32000, message: "nonce too low" } };
    else if (first !== tx.hash) {
      await fetch(upstream, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "evm_mine", params: [] }) });
    }
    return undefined;
  });
}

describe("a transaction not mined in time", () => {
  let h: Harness;
  let chain: { anvil: AnvilInstance; recorder: DeployedRecorder; rpc: JsonRpcProvider };
  let capped: { anvil: AnvilInstance; recorder: DeployedRecorder; rpc: JsonRpcProvider };
  let project: ProjectFixture;

  const send = (target: { anvil: AnvilInstance; recorder: DeployedRecorder }, x: number) =>
    post(
      h.baseUrl,
      "/transact/sendTransaction",
      { projectId: project.projectId, chainId: target.anvil.chainId, contractAddress: target.recorder.address, ...setOrder(x) },
      project.apiKey,
    );
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

  beforeAll(async () => {
    [chain, capped] = await Promise.all([stalledChain(31_211), stalledChain(31_212)]);
    h = await startHarness("stuck-tx");
    await addChain(h.db, chain.anvil, { stuckAfterSeconds: STUCK_AFTER_SECONDS });

    // A max-fee cap just above the next block's base fee: the first attempt is priced at the cap
    // (and can be mined), a replacement 12.5 % higher cannot be.
    const block = await capped.rpc.getBlock("latest");
    const tip = BigInt((await capped.rpc.send("eth_maxPriorityFeePerGas", [])) as string);
    await addChain(h.db, capped.anvil, { stuckAfterSeconds: STUCK_AFTER_SECONDS, maxFeePerGasCapWei: block!.baseFeePerGas! + tip });

    project = await createProjectFixture(h.db, h.kek, { wallets: 1 });
    await fund(chain.anvil.rpcUrl, [project.wallets[0]!.address]);
    await fund(capped.anvil.rpcUrl, [project.wallets[0]!.address]);
    await h.startTxWorker();
  });
  afterAll(async () => {
    await h?.close();
    for (const c of [chain, capped]) {
      c?.recorder.provider.destroy();
      c?.rpc.destroy();
      await c?.anvil.stop();
    }
  });

  it("replaces a dropped transaction at the same nonce with fees raised by at least 12.5 %, and confirms the replacement", async () => {
    const res = await send(chain, 1);
    expect(res.status).toBe(200);
    const id = res.body.transactionId as string;
    const submitted = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id, ["SUBMITTED"]);
    const [original] = submitted.attempts as Attempt[];
    expect((await chain.rpc.send("txpool_content", [])).pending).not.toEqual({});
    expect(await chain.rpc.send("anvil_dropTransaction", [original!.hash])).toBe(original!.hash);
    expect((await chain.rpc.send("txpool_content", [])).pending).toEqual({});

    // The replacement is made only after the stuck time, and its move (after its broadcast) is
    // in the history before the block is mined, so the block can only hold the replacement.
    const replaced = await until(id, (tx) => tx.history.filter((c) => c.status === "SUBMITTED").length === 2);
    const attempts = replaced.attempts as Attempt[];
    expect(attempts).toHaveLength(2);
    const [first, second] = attempts as [Attempt, Attempt];
    expect(Date.parse(second.createdAt) - Date.parse(first.createdAt)).toBeGreaterThanOrEqual(STUCK_AFTER_SECONDS * 1000);
    expect(second.nonce).toBe(first.nonce);
    expect(second.hash).not.toBe(first.hash);
    expect(BigInt(second.maxFeePerGas!) * 1000n).toBeGreaterThanOrEqual(BigInt(first.maxFeePerGas!) * 1125n);
    expect(BigInt(second.maxPriorityFeePerGas!) * 1000n).toBeGreaterThanOrEqual(BigInt(first.maxPriorityFeePerGas!) * 1125n);
    expect(replaced.hash).toBe(second.hash);

    await chain.rpc.send("evm_mine", []);
    const tx = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id);
    expect(tx.status).toBe("CONFIRMED");
    expect(tx.hash).toBe(second.hash);
    expect(tx.nonce).toBe(first.nonce);
    expect(tx.history.map((c) => c.status)).toEqual(["PENDING", "SUBMITTED", "SUBMITTED", "CONFIRMED"]);
    expect(tx.history[2]!.reason).toMatch(/not mined after \d+ s; replaced with higher fees/);
    expect((await chain.rpc.getTransactionReceipt(second.hash))?.status).toBe(1);
    expect(await chain.rpc.getTransactionReceipt(first.hash)).toBeNull();
    expect((await chain.recorder.contract.getFunction("lastOrder")()).id).toBe(1n);
  });

  it("does not replace above the chain's fee cap: the transaction stays SUBMITTED and says why", async () => {
    const res = await send(capped, 2);
    expect(res.status).toBe(200);
    const id = res.body.transactionId as string;
    const submitted = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id, ["SUBMITTED"]);
    const [only] = submitted.attempts;

    const noted = await until(id, (tx) => tx.history.length > 2);
    expect(noted.status).toBe("SUBMITTED");
    expect(noted.history.map((c) => c.status)).toEqual(["PENDING", "SUBMITTED", "SUBMITTED"]);
    expect(noted.history[2]!.reason).toMatch(/fee cap.*no room/);
    expect(h.logs.some((line) => line.includes(id) && line.includes("fee cap leaves no room"))).toBe(true);

    // Well past another stuck period: still the one attempt, and the note is not repeated.
    await sleep(STUCK_AFTER_SECONDS * 1000 + 1000);
    const waiting = await read(id);
    expect(waiting.status).toBe("SUBMITTED");
    expect(waiting.attempts.map((a) => a.hash)).toEqual([only!.hash]);
    expect(waiting.history).toHaveLength(3);

    // The capped attempt is still good: it is mined as soon as there is a block.
    await capped.rpc.send("evm_mine", []);
    const tx = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id);
    expect(tx.status).toBe("CONFIRMED");
    expect(tx.hash).toBe(only!.hash);
  });

  it("does not price a replacement the wallet cannot pay for over and over: it waits, and is sent as it is once the wallet is funded", async () => {
    const wallet = project.wallets[0]!.address;
    const res = await send(chain, 5);
    expect(res.status).toBe(200);
    const id = res.body.transactionId as string;
    const submitted = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id, ["SUBMITTED"]);
    const [original] = submitted.attempts;
    expect(await chain.rpc.send("anvil_dropTransaction", [original!.hash])).toBe(original!.hash);
    const balance = await chain.rpc.getBalance(wallet);
    await chain.rpc.send("anvil_setBalance", [wallet, "0x1"]);
    try {
      const noted = await until(id, (tx) => tx.history.length > 2);
      expect(noted.history[2]!.reason).toMatch(/replacement with higher fees is signed, but the wallet cannot pay for it yet/);
      // Two more stuck periods: still the one replacement, not one 12.5 % above it each time.
      await sleep(2 * STUCK_AFTER_SECONDS * 1000 + 1000);
      const waiting = await read(id);
      expect(waiting.status).toBe("SUBMITTED");
      expect(waiting.attempts).toHaveLength(2);
      expect(waiting.history).toHaveLength(3);
    } finally {
      await chain.rpc.send("anvil_setBalance", [wallet, toBeHex(balance)]);
    }
    // Funded again: the waiting replacement goes out as it is, and is mined.
    const sent = await until(id, (tx) => (tx.attempts[1] as Attempt & { broadcastAt: string | null }).broadcastAt !== null);
    const replacement = sent.attempts[1]!;
    expect(sent.attempts).toHaveLength(2);
    await chain.rpc.send("evm_mine", []);
    const tx = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id);
    expect(tx.status).toBe("CONFIRMED");
    expect(tx.hash).toBe(replacement.hash);
    expect(tx.attempts).toHaveLength(2);
  });

  it("sends the attempt the node took again while its replacement cannot be sent, so a node that dropped it does not leave the nonce unused", async () => {
    const wallet = project.wallets[0]!.address;
    const res = await send(chain, 6);
    expect(res.status).toBe(200);
    const id = res.body.transactionId as string;
    const submitted = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id, ["SUBMITTED"]);
    const original = submitted.attempts[0] as Attempt & { maxFeePerGas: string };
    // Enough for the original at its fees, not for a replacement 12.5 % above them.
    const balance = await chain.rpc.getBalance(wallet);
    await chain.rpc.send("anvil_setBalance", [wallet, toBeHex(BigInt(original.gasLimit) * BigInt(original.maxFeePerGas))]);
    try {
      const noted = await until(id, (tx) => tx.history.length > 2);
      expect(noted.history[2]!.reason).toMatch(/the wallet cannot pay for it yet/);
      // The node loses the original (a restart, a full pool).
      expect(await chain.rpc.send("anvil_dropTransaction", [original.hash])).toBe(original.hash);
      const deadline = Date.now() + 10_000;
      const inPool = async () => Object.keys(((await chain.rpc.send("txpool_content", [])) as { pending: Record<string, unknown> }).pending).some((a) => a.toLowerCase() === wallet.toLowerCase());
      while (!(await inPool())) {
        if (Date.now() > deadline) throw new Error("the original attempt was never sent again");
        await sleep(100);
      }
      await chain.rpc.send("evm_mine", []);
      const tx = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id);
      expect(tx.status).toBe("CONFIRMED");
      expect(tx.hash).toBe(original.hash);
    } finally {
      await chain.rpc.send("anvil_setBalance", [wallet, toBeHex(balance)]);
    }
  });

  it("does not call a transaction replaced when its nonce was used, by the original, while the replacement was signed", async () => {
    const racing = await stalledChain(31_213);
    const proxy = await minesBeforeReplacement(racing.anvil.rpcUrl);
    try {
      await addChain(h.db, { ...racing.anvil, rpcUrl: proxy.url }, { stuckAfterSeconds: STUCK_AFTER_SECONDS });
      await fund(racing.anvil.rpcUrl, [project.wallets[0]!.address]);
      const res = await send(racing, 7);
      expect(res.status).toBe(200);
      const id = res.body.transactionId as string;
      const submitted = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id, ["SUBMITTED"]);
      const original = submitted.attempts[0]!;

      const tx = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id, undefined, 20_000);
      expect(tx.status).toBe("CONFIRMED");
      expect(tx.hash).toBe(original.hash);
      // The replacement was signed and stored (its nonce was used before the node took it) but
      // never sent: the history does not say the transaction was replaced.
      expect(tx.attempts).toHaveLength(2);
      expect(tx.history.map((c) => c.status)).toEqual(["PENDING", "SUBMITTED", "CONFIRMED"]);
    } finally {
      await proxy.close();
      racing.recorder.provider.destroy();
      racing.rpc.destroy();
      await racing.anvil.stop();
    }
  });

  it("does not mark a replacement broadcast when the node answers its nonce is used: it never entered a pool", async () => {
    const racing = await stalledChain(31_214);
    const proxy = await minesBeforeReplacement(racing.anvil.rpcUrl, { mine: false });
    try {
      await addChain(h.db, { ...racing.anvil, rpcUrl: proxy.url }, { stuckAfterSeconds: STUCK_AFTER_SECONDS });
      await fund(racing.anvil.rpcUrl, [project.wallets[0]!.address]);
      const res = await send(racing, 8);
      expect(res.status).toBe(200);
      const id = res.body.transactionId as string;
      const submitted = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id, ["SUBMITTED"]);
      const original = submitted.attempts[0]!;
      // The replacement is signed after the stuck time and sent again on the runs after it.
      const signed = await until(id, (tx) => tx.attempts.length === 2);
      await sleep(1500);
      const waiting = (await read(id)) as TransactionView & { attempts: (Attempt & { broadcastAt: string | null })[] };
      expect(waiting.status).toBe("SUBMITTED");
      expect(waiting.attempts[1]!.broadcastAt).toBeNull();
      expect(waiting.hash).toBe(original.hash);
      expect(signed.history.map((c) => c.status)).toEqual(["PENDING", "SUBMITTED"]);

      await racing.rpc.send("evm_mine", []);
      const tx = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id, undefined, 20_000);
      expect([tx.status, tx.hash]).toEqual(["CONFIRMED", original.hash]);
    } finally {
      await proxy.close();
      racing.recorder.provider.destroy();
      racing.rpc.destroy();
      await racing.anvil.stop();
    }
  });
});
