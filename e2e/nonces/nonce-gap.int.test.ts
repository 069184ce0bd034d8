import { JsonRpcProvider, keccak256, parseUnits, toBeHex, Transaction, Wallet, type Contract } from "ethers";
import { createNonceFillerRepository, createPool, createTransactionRepository } from "@relay/db";
import { createProjectFixture, deployRecorder, startAnvil, startRpcInterceptor, testDatabaseUrl, type AnvilInstance, type ProjectFixture } from "@relay/testing";
import { post, sendTransaction, startHarness, type Harness } from "../support/harness";
import { abandonNextNonce } from "../support/abandoned-nonce";
import { addChain, fund, waitForStatus } from "@relay/testing";

describe("a nonce abandoned by a failed transaction", () => {
  let h: Harness;
  let anvil: AnvilInstance;
  let recorder: { address: string; contract: Contract; provider: JsonRpcProvider };
  let project: ProjectFixture;

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 31_077 });
    recorder = await deployRecorder(anvil.rpcUrl);
    h = await startHarness("nonce-gap");
    await addChain(h.db, anvil, { stuckAfterSeconds: 1 });
    project = await createProjectFixture(h.db, h.kek, { wallets: 1 });
    await fund(anvil.rpcUrl, [project.wallets[0]!.address]);
    await h.startTxWorker();
  });
  afterAll(async () => {
    await h.close();
    recorder.provider.destroy();
    await anvil.stop();
  });

  it("is filled with a 0-value self-transfer so the transactions after it are mined", async () => {
    const wallet = project.wallets[0]!.address;
    // A transaction that took nonce 0 and then failed before sending anything.
    const pool = createPool({ url: testDatabaseUrl() });
    const transactions = createTransactionRepository({ sql: pool, db: h.db });
    expect(await abandonNextNonce(transactions, { projectId: project.projectId, chainId: anvil.chainId, contractAddress: recorder.address, address: wallet })).toBe(0n);

    const res = await post(
      h.baseUrl,
      "/transact/sendTransaction",
      { projectId: project.projectId, chainId: anvil.chainId, contractAddress: recorder.address, functionSignature: "spend(uint256 n)", args: { n: 1 } },
      project.apiKey,
    );
    expect(res.status).toBe(200);
    const tx = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, res.body.transactionId as string);
    expect(tx.status).toBe("CONFIRMED");
    expect(tx.nonce).toBe("1");

    const filler = (await pool.query(`SELECT hash FROM nonce_filler WHERE address = $1 AND nonce = 0`, [wallet])).rows[0] as { hash: string };
    const mined = await recorder.provider.getTransaction(filler.hash);
    expect(mined).toMatchObject({ from: wallet, to: wallet, value: 0n, nonce: 0 });
    expect((await recorder.provider.getTransactionReceipt(filler.hash))?.status).toBe(1);
    await pool.end();
  });

  it("is filled also on a node whose pending nonce counts every pooled transaction, gaps included (Besu)", async () => {
    const besuLike = await startAnvil({ chainId: 31_079 });
    // Besu answers the pending nonce as the highest nonce in its pool plus one, whatever gap lies
    // below it (besu-eth/besu#9529): with the wallet's next transaction waiting behind the gap,
    // that is past the abandoned nonce.
    const pooledNonces = async (address: string): Promise<number[]> => {
      const res = await fetch(besuLike.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "txpool_content", params: [] }) });
      const pool = ((await res.json()) as { result: Record<"pending" | "queued", Record<string, Record<string, unknown>>> }).result;
      const ofAddress = (part: Record<string, Record<string, unknown>>) => Object.entries(part).find(([a]) => a.toLowerCase() === address.toLowerCase())?.[1] ?? {};
      return [...Object.keys(ofAddress(pool.pending)), ...Object.keys(ofAddress(pool.queued))].map(Number);
    };
    const interceptor = await startRpcInterceptor(besuLike.rpcUrl, async (call) => {
      if (call.method !== "eth_getTransactionCount" || call.params[1] !== "pending") return undefined;
      const nonces = await pooledNonces(call.params[0] as string);
      return nonces.length > 0 ? { result: toBeHex(Math.max(...nonces) + 1) } : undefined;
    });
    const pool = createPool({ url: testDatabaseUrl() });
    try {
      const besuRecorder = await deployRecorder(besuLike.rpcUrl);
      besuRecorder.provider.destroy();
      await addChain(h.db, { ...besuLike, rpcUrl: interceptor.url }, { stuckAfterSeconds: 1 });
      const owner = await createProjectFixture(h.db, h.kek, { wallets: 1 });
      const wallet = owner.wallets[0]!.address;
      await fund(besuLike.rpcUrl, [wallet]);
      const transactions = createTransactionRepository({ sql: pool, db: h.db });
      expect(await abandonNextNonce(transactions, { projectId: owner.projectId, chainId: besuLike.chainId, contractAddress: besuRecorder.address, address: wallet })).toBe(0n);

      const res = await sendTransaction(h.baseUrl, owner, { chainId: besuLike.chainId, contractAddress: besuRecorder.address, functionSignature: "spend(uint256 n)", args: { n: 1 } });
      const tx = await waitForStatus(h.baseUrl, owner.apiKey, owner.projectId, res.body.transactionId as string, ["CONFIRMED", "REVERTED", "INVALID", "FAILED"], 20_000);
      expect(tx).toMatchObject({ status: "CONFIRMED", nonce: "1" });
      expect((await pool.query(`SELECT 1 FROM nonce_filler WHERE address = $1 AND nonce = 0`, [wallet])).rowCount).toBe(1);
    } finally {
      await pool.end();
      await interceptor.close();
      await besuLike.stop();
    }
  });

  it("leaves a nonce to a transaction sent with the key outside the relay that waits for it in the node's pool", async () => {
    // A node that mines only when told to: the outside transaction stays pending.
    const stalled = await startAnvil({ chainId: 31_078 });
    const rpc = new JsonRpcProvider(stalled.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
    const pool = createPool({ url: testDatabaseUrl() });
    try {
      const stalledRecorder = await deployRecorder(stalled.rpcUrl);
      stalledRecorder.provider.destroy();
      await rpc.send("evm_setAutomine", [false]);
      await addChain(h.db, stalled, { stuckAfterSeconds: 1 });
      const key = Wallet.createRandom().connect(rpc);
      const owner = await createProjectFixture(h.db, h.kek, { privateKeys: [key.privateKey] });
      await fund(stalled.rpcUrl, [key.address]);

      // The operator's own transaction at nonce 0, priced just at the base fee: any filler would outbid it.
      const baseFee = (await rpc.getBlock("latest"))!.baseFeePerGas!;
      const outside = await key.sendTransaction({ to: key.address, value: 1n, nonce: 0, gasLimit: 21_000n, maxFeePerGas: baseFee + 1n, maxPriorityFeePerGas: 1n });

      const res = await post(
        h.baseUrl,
        "/transact/sendTransaction",
        { projectId: owner.projectId, chainId: stalled.chainId, contractAddress: stalledRecorder.address, functionSignature: "spend(uint256 n)", args: { n: 1 } },
        owner.apiKey,
      );
      const id = res.body.transactionId as string;
      const submitted = await waitForStatus(h.baseUrl, owner.apiKey, owner.projectId, id, ["SUBMITTED"]);
      expect(submitted.nonce).toBe("1");
      // Well past the stuck time: the worker has looked at the gap below it, and left it.
      await new Promise((r) => setTimeout(r, 3000));
      expect((await pool.query(`SELECT 1 FROM nonce_filler WHERE address = $1`, [key.address])).rowCount).toBe(0);
      expect(h.logs.some((l) => l.includes("a transaction from outside the relay waits at this nonce"))).toBe(true);

      await rpc.send("evm_mine", []);
      const tx = await waitForStatus(h.baseUrl, owner.apiKey, owner.projectId, id, ["CONFIRMED", "REVERTED", "INVALID", "FAILED"]);
      expect(tx.status).toBe("CONFIRMED");
      expect((await rpc.getTransactionReceipt(outside.hash))?.status).toBe(1);
    } finally {
      await pool.end();
      rpc.destroy();
      await stalled.stop();
    }
  });

  it("replaces a stored filler the node refuses on its fees (signed before the base fee rose) with one priced higher", async () => {
    const key = Wallet.createRandom();
    const owner = await createProjectFixture(h.db, h.kek, { privateKeys: [key.privateKey] });
    await fund(anvil.rpcUrl, [key.address]);
    const pool = createPool({ url: testDatabaseUrl() });
    try {
      const transactions = createTransactionRepository({ sql: pool, db: h.db });
      const nonce = await abandonNextNonce(transactions, { projectId: owner.projectId, chainId: anvil.chainId, contractAddress: recorder.address, address: key.address });
      // A filler stored by an earlier run at 1 gwei, then the base fee rose to 50 gwei.
      const raw = await key.signTransaction({
        type: 2,
        chainId: anvil.chainId,
        nonce: Number(nonce),
        to: key.address,
        value: 0n,
        gasLimit: 21_000n,
        maxFeePerGas: parseUnits("1", "gwei"),
        maxPriorityFeePerGas: parseUnits("1", "gwei"),
      });
      const stale = await createNonceFillerRepository(pool).record({
        chainId: BigInt(anvil.chainId),
        address: key.address,
        nonce,
        hash: keccak256(raw),
        rawTransaction: Buffer.from(raw.slice(2), "hex"),
      });
      await recorder.provider.send("anvil_setNextBlockBaseFeePerGas", [toBeHex(parseUnits("50", "gwei"))]);
      await recorder.provider.send("evm_mine", []);

      const res = await post(
        h.baseUrl,
        "/transact/sendTransaction",
        { projectId: owner.projectId, chainId: anvil.chainId, contractAddress: recorder.address, functionSignature: "spend(uint256 n)", args: { n: 1 } },
        owner.apiKey,
      );
      const tx = await waitForStatus(h.baseUrl, owner.apiKey, owner.projectId, res.body.transactionId as string, ["CONFIRMED", "REVERTED", "INVALID", "FAILED"], 30_000);
      expect(tx.status).toBe("CONFIRMED");
      expect(tx.nonce).toBe((nonce + 1n).toString());

      const filler = (await pool.query(`SELECT hash FROM nonce_filler WHERE address = $1 AND nonce = $2`, [key.address, nonce.toString()])).rows[0] as { hash: string };
      expect(filler.hash).not.toBe(stale.hash);
      const mined = await recorder.provider.getTransaction(filler.hash);
      expect(mined).toMatchObject({ from: key.address, to: key.address, value: 0n, nonce: Number(nonce) });
      expect(mined!.maxFeePerGas! >= parseUnits("50", "gwei")).toBe(true);
      expect((await recorder.provider.getTransactionReceipt(filler.hash))?.status).toBe(1);
      expect(await recorder.provider.getTransaction(stale.hash)).toBeNull();
    } finally {
      await pool.end();
    }
  });
  it("replaces a filler the node took but a rising base fee priced out, on a node that answers its resend 'already known' (geth)", async () => {
    // geth keeps a pooled transaction whose max fee fell below the base fee and answers a resend of
    // it "already known" until its nonce is used; anvil drops it when it builds a block. Before, a
    // filler was re-priced only on a refusal, so on geth it, and the wallet behind it, waited for
    // the base fee to fall back.
    const node = await startAnvil({ chainId: 31_080 });
    const rpc = new JsonRpcProvider(node.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
    const nodeRecorder = await deployRecorder(node.rpcUrl);
    await rpc.send("evm_setAutomine", [false]);
    const taken = new Set<string>();
    const gethLike = await startRpcInterceptor(node.rpcUrl, async (call) => {
      if (call.method !== "eth_sendRawTransaction") return undefined;
      const sent = Transaction.from(call.params[0] as string);
      if (taken.has(sent.hash!) && (await rpc.getTransactionCount(sent.from!, "latest")) <= sent.nonce) return { error: { code: -32000, message: "already known" } };
      const answer = (await (await fetch(node.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(call) })).json()) as { result?: unknown; error?: { code: number; message: string } };
      if (answer.result !== undefined) taken.add(sent.hash!);
      return answer.error ? { error: answer.error } : { result: answer.result };
    });
    const pool = createPool({ url: testDatabaseUrl() });
    let mining: NodeJS.Timeout | undefined;
    try {
      await addChain(h.db, { ...node, rpcUrl: gethLike.url }, { stuckAfterSeconds: 1 });
      const owner = await createProjectFixture(h.db, h.kek, { wallets: 1 });
      const wallet = owner.wallets[0]!.address;
      await fund(node.rpcUrl, [wallet]);
      await rpc.send("evm_mine", []);
      const transactions = createTransactionRepository({ sql: pool, db: h.db });
      const nonce = await abandonNextNonce(transactions, { projectId: owner.projectId, chainId: node.chainId, contractAddress: nodeRecorder.address, address: wallet });
      const res = await sendTransaction(h.baseUrl, owner, { chainId: node.chainId, contractAddress: nodeRecorder.address, functionSignature: "spend(uint256 n)", args: { n: 1 } });
      const id = res.body.transactionId as string;

      // The filler is signed and taken into the pool; then the base fee rises past its max fee, for good.
      const fillerOf = async () => (await pool.query<{ hash: string; raw_transaction: Buffer }>(`SELECT hash, raw_transaction FROM nonce_filler WHERE address = $1 AND nonce = $2`, [wallet, nonce.toString()])).rows[0];
      let first: { hash: string; raw_transaction: Buffer } | undefined;
      for (const deadline = Date.now() + 20_000; !(first && taken.has(first.hash)) && Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) first = await fillerOf();
      expect(first && taken.has(first.hash)).toBe(true);
      const spike = Transaction.from(`0x${first!.raw_transaction.toString("hex")}`).maxFeePerGas! * 2n;
      const mine = async () => {
        await rpc.send("anvil_setNextBlockBaseFeePerGas", [toBeHex(spike)]);
        await rpc.send("evm_mine", []);
      };
      await mine();
      mining = setInterval(() => void mine().catch(() => undefined), 1000);

      const tx = await waitForStatus(h.baseUrl, owner.apiKey, owner.projectId, id, ["CONFIRMED", "REVERTED", "INVALID", "FAILED"], 40_000);
      expect(tx.status).toBe("CONFIRMED");
      const filler = await fillerOf();
      expect(filler!.hash).not.toBe(first!.hash);
      expect((await rpc.getTransactionReceipt(filler!.hash))?.status).toBe(1);
    } finally {
      if (mining) clearInterval(mining);
      await pool.end();
      await gethLike.close();
      nodeRecorder.provider.destroy();
      rpc.destroy();
      await node.stop();
    }
  }, 90_000);
});
