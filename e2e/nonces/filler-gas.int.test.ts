import { keccak256, parseUnits, Transaction, Wallet } from "ethers";
import { createNonceFillerRepository, createPool, createTransactionRepository } from "@relay/db";
import { createProjectFixture, startRecorderChain, startRpcInterceptor, testDatabaseUrl, type ProjectFixture, type RecorderChain } from "@relay/testing";
import { addChain, fund, waitForStatus } from "@relay/testing";
import { abandonNextNonce } from "../support/abandoned-nonce";
import { post, startHarness, type Harness } from "../support/harness";

/** What a plain transfer costs on the chain the proxy plays (an L2 charging its L1 data in gas). */
const TRANSFER_GAS = 30_000n;

/**
 * anvil behind a proxy that makes it look like an L2 (Arbitrum) in the one way that matters here:
 * a 0-value transfer needs 30,000 gas, not 21,000. Estimates of self-transfers say so, and a
 * self-transfer signed with less is refused as the L2's node refuses it. An L2 node cannot run
 * here; everything else is anvil's own answer.
 */
const startL2Proxy = (upstream: string) =>
  startRpcInterceptor(upstream, (call) => {
    const params = call.params as [{ from?: string; to?: string }?];
    if (call.method === "eth_estimateGas" && params[0]?.from && params[0].from.toLowerCase() === params[0].to?.toLowerCase()) {
      return { result: `0x${TRANSFER_GAS.toString(16)}` };
    }
    if (call.method === "eth_sendRawTransaction") {
      const tx = Transaction.from(call.params[0] as string);
      if (tx.to && tx.from && tx.to.toLowerCase() === tx.from.toLowerCase() && tx.gasLimit < TRANSFER_GAS) {
        return { error: { code: -32000, message: `intrinsic gas too low: have ${tx.gasLimit}, want ${TRANSFER_GAS}` } };
      }
    }
    return undefined;
  });

describe("a nonce filler on a chain where a transfer needs more than 21,000 gas", () => {
  let h: Harness;
  let chain: RecorderChain;
  let proxy: Awaited<ReturnType<typeof startL2Proxy>>;
  let project: ProjectFixture;

  beforeAll(async () => {
    chain = await startRecorderChain({ chainId: 31_079 });
    proxy = await startL2Proxy(chain.anvil.rpcUrl);
    h = await startHarness("filler-gas");
    await addChain(h.db, { ...chain.anvil, rpcUrl: proxy.url }, { stuckAfterSeconds: 1 });
    project = await createProjectFixture(h.db, h.kek, { wallets: 1 });
    await fund(chain.anvil.rpcUrl, [project.wallets[0]!.address]);
    await h.startTxWorker();
  });
  /** A transaction of `owner`'s wallet sent after its abandoned nonce 0: final only once the gap is filled. */
  const sendBehindTheGap = async (owner: ProjectFixture) => {
    const res = await post(
      h.baseUrl,
      "/transact/sendTransaction",
      { projectId: owner.projectId, chainId: chain.anvil.chainId, contractAddress: chain.recorder.address, functionSignature: "spend(uint256 n)", args: { n: 1 } },
      owner.apiKey,
    );
    expect(res.status).toBe(200);
    return waitForStatus(h.baseUrl, owner.apiKey, owner.projectId, res.body.transactionId as string);
  };

  afterAll(async () => {
    await h?.close();
    await proxy?.close();
    await chain?.stop();
  });

  it("is signed with the gas the node estimates, so it is taken and the transaction behind the gap is mined", async () => {
    const wallet = project.wallets[0]!.address;
    const pool = createPool({ url: testDatabaseUrl() });
    try {
      const transactions = createTransactionRepository({ sql: pool, db: h.db });
      expect(await abandonNextNonce(transactions, { projectId: project.projectId, chainId: chain.anvil.chainId, contractAddress: chain.recorder.address, address: wallet })).toBe(0n);

      expect(await sendBehindTheGap(project)).toMatchObject({ status: "CONFIRMED", nonce: "1" });

      const filler = (await pool.query<{ hash: string }>(`SELECT hash FROM nonce_filler WHERE address = $1 AND nonce = 0`, [wallet])).rows[0]!;
      const mined = await chain.recorder.provider.getTransaction(filler.hash);
      expect(mined).toMatchObject({ from: wallet, to: wallet, value: 0n, nonce: 0, gasLimit: TRANSFER_GAS });
    } finally {
      await pool.end();
    }
  });

  it("replaces a stored filler the node refuses for good (signed with 21,000 gas) by one with the estimated gas", async () => {
    // A wallet whose key the test holds, so it can store the filler an earlier release signed.
    const key = Wallet.createRandom();
    const owner = await createProjectFixture(h.db, h.kek, { privateKeys: [key.privateKey] });
    await fund(chain.anvil.rpcUrl, [key.address]);
    const pool = createPool({ url: testDatabaseUrl() });
    try {
      const transactions = createTransactionRepository({ sql: pool, db: h.db });
      expect(await abandonNextNonce(transactions, { projectId: owner.projectId, chainId: chain.anvil.chainId, contractAddress: chain.recorder.address, address: key.address })).toBe(0n);
      const old = await key.signTransaction({
        chainId: chain.anvil.chainId,
        nonce: 0,
        to: key.address,
        value: 0n,
        gasLimit: 21_000n,
        type: 2,
        maxFeePerGas: parseUnits("10", "gwei"),
        maxPriorityFeePerGas: parseUnits("1", "gwei"),
      });
      await createNonceFillerRepository(pool).record({
        chainId: BigInt(chain.anvil.chainId),
        address: key.address,
        nonce: 0n,
        hash: keccak256(old),
        rawTransaction: Buffer.from(old.slice(2), "hex"),
      });

      expect(await sendBehindTheGap(owner)).toMatchObject({ status: "CONFIRMED", nonce: "1" });
      const filler = (await pool.query<{ hash: string }>(`SELECT hash FROM nonce_filler WHERE address = $1 AND nonce = 0`, [key.address])).rows[0]!;
      expect(filler.hash).not.toBe(keccak256(old));
      expect(await chain.recorder.provider.getTransaction(filler.hash)).toMatchObject({ from: key.address, nonce: 0, gasLimit: TRANSFER_GAS });
    } finally {
      await pool.end();
    }
  });
});
