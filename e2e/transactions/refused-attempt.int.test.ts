import { keccak256, parseUnits, toBeHex, Wallet, type JsonRpcProvider } from "ethers";
import { createPool, createTransactionRepository, type TransactionRepository } from "@relay/db";
import { addChain, createProjectFixture, fund, readTransaction, startRecorderChain, testDatabaseUrl, waitForStatus, type ProjectFixture, type RecorderChain } from "@relay/testing";
import { sendTransaction, startHarness, type Harness } from "../support/harness";

const gwei = (n: number) => parseUnits(String(n), "gwei");
const FINAL = ["CONFIRMED", "REVERTED", "INVALID", "FAILED"];
const STUCK_AFTER_SECONDS = 2;

/**
 * A signed attempt the node will not take, stored before its broadcast, as a crash or a pause for
 * funds leaves it behind: the worker must not resend the same bytes for ever with the wallet's
 * later nonces jammed behind them.
 */
describe("a stored attempt the node refuses", () => {
  let h: Harness;
  let pool: ReturnType<typeof createPool>;
  let transactions: TransactionRepository;
  let chain: RecorderChain;
  let capped: RecorderChain;
  let key: Wallet;
  let project: ProjectFixture;

  beforeAll(async () => {
    [chain, capped] = await Promise.all([startRecorderChain({ chainId: 31_231 }), startRecorderChain({ chainId: 31_232 })]);
    h = await startHarness("refused-attempt");
    pool = createPool({ url: testDatabaseUrl(), poolSize: 2 });
    transactions = createTransactionRepository({ sql: pool, db: h.db });
    await addChain(h.db, chain.anvil, { stuckAfterSeconds: STUCK_AFTER_SECONDS });
    // A max-fee cap of 10 gwei: room above a 1 gwei attempt, none above a 50 gwei base fee.
    await addChain(h.db, capped.anvil, { stuckAfterSeconds: STUCK_AFTER_SECONDS, maxFeePerGasCapWei: gwei(10) });
    key = Wallet.createRandom() as unknown as Wallet;
    project = await createProjectFixture(h.db, h.kek, { privateKeys: [key.privateKey] });
    await fund(chain.anvil.rpcUrl, [key.address]);
    await fund(capped.anvil.rpcUrl, [key.address]);
  });
  afterAll(async () => {
    await h?.close();
    if (pool && !pool.ended) await pool.end();
    await chain?.stop();
    await capped?.stop();
  });

  /** Accepted by the gateway (no tx-worker runs yet), bound to the wallet's next nonce and signed by the test with these fees and gas limit. */
  async function pendingWithStoredAttempt(target: RecorderChain, x: number, signed: { maxFeePerGas: bigint; gasLimit: bigint }) {
    await h.stopTxWorker();
    const res = await sendTransaction(h.baseUrl, project, {
      chainId: target.anvil.chainId,
      contractAddress: target.recorder.address,
      functionSignature: "setOrder((uint256 id, address owner, uint8[] flags) order)",
      args: { order: { id: x, owner: key.address, flags: [] } },
    });
    expect(res.status).toBe(200);
    const id = res.body.transactionId as string;
    const tx = (await transactions.findById(project.projectId, id))!;
    const provider = target.recorder.provider as JsonRpcProvider;
    const binding = (await transactions.allocateNonce({
      projectId: project.projectId,
      transactionId: id,
      address: key.address,
      chainPendingNonce: BigInt(await provider.getTransactionCount(key.address, "pending")),
    }))!;
    const raw = await key.signTransaction({
      type: 2,
      chainId: target.anvil.chainId,
      nonce: Number(binding.nonce),
      to: tx.contractAddress,
      data: `0x${Buffer.from(tx.calldata).toString("hex")}`,
      gasLimit: signed.gasLimit,
      maxFeePerGas: signed.maxFeePerGas,
      maxPriorityFeePerGas: gwei(1) < signed.maxFeePerGas ? gwei(1) : signed.maxFeePerGas,
    });
    const attempt = await transactions.recordAttempt({
      projectId: project.projectId,
      transactionId: id,
      chainId: BigInt(target.anvil.chainId),
      fromAddress: key.address,
      nonce: binding.nonce,
      hash: keccak256(raw),
      rawTransaction: Buffer.from(raw.slice(2), "hex"),
      type: 2,
      gasLimit: signed.gasLimit,
      maxFeePerGasWei: signed.maxFeePerGas,
      maxPriorityFeePerGasWei: gwei(1) < signed.maxFeePerGas ? gwei(1) : signed.maxFeePerGas,
    });
    return { id, nonce: binding.nonce, attempt };
  }

  const setBaseFee = async (target: RecorderChain, fee: bigint) => {
    await target.recorder.provider.send("anvil_setNextBlockBaseFeePerGas", [toBeHex(fee)]);
    await target.recorder.provider.send("evm_mine", []);
  };

  it("priced under the base fee: signed again at the same nonce with fees the node takes, and CONFIRMED", async () => {
    const { id, nonce, attempt } = await pendingWithStoredAttempt(chain, 1, { maxFeePerGas: gwei(1), gasLimit: 200_000n });
    await setBaseFee(chain, gwei(50));

    await h.startTxWorker();
    const tx = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id, FINAL, 20_000);
    expect(tx.status).toBe("CONFIRMED");
    expect(tx.history.map((c) => c.status)).toEqual(["PENDING", "SUBMITTED", "CONFIRMED"]);
    const [refused, taken] = tx.attempts as unknown as [{ hash: string; nonce: string; maxFeePerGas: string }, { hash: string; nonce: string; maxFeePerGas: string }];
    expect(tx.attempts).toHaveLength(2);
    expect(refused.hash).toBe(attempt.hash);
    expect([refused.nonce, taken.nonce]).toEqual([nonce.toString(), nonce.toString()]);
    expect(BigInt(taken.maxFeePerGas)).toBeGreaterThanOrEqual(gwei(50));
    expect(tx.hash).toBe(taken.hash);
    expect(await chain.recorder.provider.getTransactionReceipt(refused.hash)).toBeNull();
    expect((await chain.recorder.contract.getFunction("lastOrder")()).id).toBe(1n);
  });

  it("refused for good (a gas limit above the block's): FAILED with the node's words, and the wallet's next transaction is not jammed behind its nonce", async () => {
    const { id, nonce } = await pendingWithStoredAttempt(chain, 2, { maxFeePerGas: gwei(200), gasLimit: 40_000_000n });
    await h.startTxWorker();
    const failed = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id, FINAL, 20_000);
    expect(failed.status).toBe("FAILED");
    expect(failed.error).toMatch(/the node refused the signed transaction: .*gas_limit > env\.block\.gas_limit/);
    expect(failed.history.map((c) => c.status)).toEqual(["PENDING", "FAILED"]);
    expect(await chain.recorder.provider.getTransactionCount(key.address, "latest")).toBe(Number(nonce));

    // The next transaction takes the next nonce; the abandoned one is filled with a self-transfer.
    const res = await sendTransaction(h.baseUrl, project, {
      chainId: chain.anvil.chainId,
      contractAddress: chain.recorder.address,
      functionSignature: "setOrder((uint256 id, address owner, uint8[] flags) order)",
      args: { order: { id: 3, owner: key.address, flags: [] } },
    });
    const next = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, res.body.transactionId as string, FINAL, 30_000);
    expect(next.status).toBe("CONFIRMED");
    expect(next.nonce).toBe((nonce + 1n).toString());
    expect((await chain.recorder.contract.getFunction("lastOrder")()).id).toBe(3n);
  });

  it("with no room under the chain's fee cap: waits, says why once, and is sent when the base fee falls", async () => {
    const { id } = await pendingWithStoredAttempt(capped, 4, { maxFeePerGas: gwei(1), gasLimit: 200_000n });
    await setBaseFee(capped, gwei(50));
    await h.startTxWorker();

    const noted = await (async () => {
      for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
        const tx = await readTransaction(h.baseUrl, project.apiKey, project.projectId, id);
        if (tx.history.length > 1) return tx;
      }
      throw new Error("no note in the history");
    })();
    expect(noted.status).toBe("PENDING");
    expect(noted.history.map((c) => c.status)).toEqual(["PENDING", "PENDING"]);
    expect(noted.history[1]!.reason).toMatch(/max fee per gas less than block base fee.*fee cap leaves no room/);
    // Repriced once up to the cap (10 gwei, still under the base fee), then nothing more.
    expect(noted.attempts.map((a) => BigInt((a as { maxFeePerGas: string }).maxFeePerGas))).toEqual([gwei(1), gwei(10)]);

    await setBaseFee(capped, gwei(1));
    const tx = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id, FINAL, 20_000);
    expect(tx.status).toBe("CONFIRMED");
    expect(tx.history.map((c) => c.status)).toEqual(["PENDING", "PENDING", "SUBMITTED", "CONFIRMED"]);
    expect(tx.hash).toBe(noted.attempts[1]!.hash);
    expect((await capped.recorder.contract.getFunction("lastOrder")()).id).toBe(4n);
  });
});
