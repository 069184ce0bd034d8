import { addChain, createProjectFixture, FINAL, fund, startRecorderChain, waitForStatus, type RecorderChain } from "@relay/testing";
import { sendTransaction, startHarness, type Harness } from "../support/harness";

/**
 * Three wallets of one project calling Recorder.setOwnOrder in bursts: what a call costs depends on
 * the same wallet's call before it (its own order, emptied or filled: up to 20,000 gas a slot) and
 * a little on which sender called last (`lastCaller`: 2,800 gas), which the chain decides. The gas
 * limit keeps its headroom over what the call needs after the wallet's own calls: an estimate
 * that passed after them with a few hundred gas to spare ran out when another sender's call came
 * in between.
 */
describe("gas limits of several wallets' state-dependent calls", () => {
  let h: Harness;
  let chain: RecorderChain;

  beforeAll(async () => {
    chain = await startRecorderChain({ chainId: 31_246 });
    h = await startHarness("multi-wallet-gas");
    await addChain(h.db, chain.anvil);
    await h.startTxWorker({ concurrency: 8 });
  });
  afterAll(async () => {
    await h?.close();
    await chain?.stop();
  });

  it("confirms every call of bursts from three wallets whose orders alternate between empty and full", async () => {
    const project = await createProjectFixture(h.db, h.kek, { wallets: 3 });
    await fund(chain.anvil.rpcUrl, project.wallets.map((w) => w.address));
    const owner = project.wallets[0]!.address;
    const ids: string[] = [];
    for (let round = 0; round < 20; round++) {
      const burst = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          sendTransaction(h.baseUrl, project, {
            chainId: chain.anvil.chainId,
            contractAddress: chain.recorder.address,
            functionSignature: "setOwnOrder((uint256 id, address owner, uint8[] flags) order)",
            args: { order: { id: round * 10 + i + 1, owner, flags: (round * 6 + i) % 2 ? [1, 2, 3] : [] } },
          }),
        ),
      );
      ids.push(...burst.map((r) => r.body.transactionId as string));
      await new Promise((r) => setTimeout(r, 150));
    }
    const final = await Promise.all(ids.map((id) => waitForStatus(h.baseUrl, project.apiKey, project.projectId, id, FINAL, 120_000)));
    expect(final.filter((tx) => tx.status !== "CONFIRMED").map((tx) => [tx.status, tx.nonce, tx.error])).toEqual([]);
  }, 180_000);
});
