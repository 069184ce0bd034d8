import { createProjectFixture, fund, startRecorderChain, type AnvilInstance, type DeployedRecorder, type ProjectFixture, type RecorderChain } from "@relay/testing";
import { addChain, waitForStatus } from "@relay/testing";
import { sendTransaction, startHarness, type Harness } from "../support/harness";

/**
 * The gas limit a transaction is signed with: the estimate plus 20 % headroom, but never above
 * the block's gas limit, which the node refuses for good.
 */
describe("gas limit against the block's", () => {
  let h: Harness;
  let chain: RecorderChain;
  let anvil: AnvilInstance;
  let recorder: DeployedRecorder;
  let project: ProjectFixture;
  const BLOCK_GAS_LIMIT = 1_000_000n;

  beforeAll(async () => {
    chain = await startRecorderChain({ chainId: 31_231 });
    ({ anvil, recorder } = chain);
    // After the Recorder's deployment, which needs more.
    await recorder.provider.send("evm_setBlockGasLimit", [`0x${BLOCK_GAS_LIMIT.toString(16)}`]);
    await recorder.provider.send("evm_mine", []);
    h = await startHarness("gas-limit");
    await addChain(h.db, anvil);
    project = await createProjectFixture(h.db, h.kek, { wallets: 1 });
    await fund(anvil.rpcUrl, project.wallets.map((w) => w.address));
    await h.startTxWorker();
  });
  afterAll(async () => {
    await h?.close();
    await chain?.stop();
  });

  it("confirms a call that fits in a block only without all of its headroom, signed at the block's limit", async () => {
    // spend(800) burns about 800,000 gas on top of its fixed cost: an estimate of 0.84-0.91 M,
    // whose 20 % headroom (1.01-1.09 M) is more than the block's 1 M.
    const res = await sendTransaction(h.baseUrl, project, { chainId: anvil.chainId, contractAddress: recorder.address, functionSignature: "spend(uint256 n)", args: { n: 800 } });
    expect(res.status).toBe(200);
    const tx = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, res.body.transactionId as string, ["CONFIRMED", "REVERTED", "INVALID", "FAILED"], 20_000);
    expect([tx.status, tx.error]).toEqual(["CONFIRMED", null]);
    expect(tx.attempts).toHaveLength(1);
    expect(BigInt(tx.attempts[0]!.gasLimit)).toBe(BLOCK_GAS_LIMIT);
    expect((await recorder.contract.getFunction("totalSpent")()) as bigint).toBe(800n);
  });
});
