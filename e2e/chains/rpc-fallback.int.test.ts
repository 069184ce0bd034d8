import { createChainRepository } from "@relay/db";
import { createProjectFixture, fund, setOrderCall, startRecorderChain, waitForStatus, type ProjectFixture, type RecorderChain } from "@relay/testing";
import { sendTransaction, startHarness, type Harness } from "../support/harness";

/** A chain registered with a fallback RPC URL (`relay chains add --rpc-url A --rpc-url B`). */
describe("a chain whose first RPC URL is down", () => {
  let h: Harness;
  let chain: RecorderChain;
  let project: ProjectFixture;

  beforeAll(async () => {
    chain = await startRecorderChain({ chainId: 31_232 });
    h = await startHarness("rpc-fallback");
    await createChainRepository(h.db).upsert({
      chainId: BigInt(chain.anvil.chainId),
      name: "fallback test",
      rpcUrls: ["http://127.0.0.1:9", chain.anvil.rpcUrl],
      confirmations: 1,
      lowBalanceThresholdWei: 0n,
      blockTimeMs: 200,
      stuckAfterSeconds: 60,
    });
    project = await createProjectFixture(h.db, h.kek, { wallets: 1 });
    await fund(chain.anvil.rpcUrl, project.wallets.map((w) => w.address));
    await h.startTxWorker();
  });
  afterAll(async () => {
    await h?.close();
    await chain?.stop();
  });

  it("takes a transaction to CONFIRMED through the next URL", async () => {
    const res = await sendTransaction(h.baseUrl, project, { chainId: chain.anvil.chainId, contractAddress: chain.recorder.address, ...setOrderCall(9, project.wallets[0]!.address) });
    expect(res.status).toBe(200);
    const tx = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, res.body.transactionId as string, undefined, 20_000);
    expect(tx.status).toBe("CONFIRMED");
    expect((await chain.recorder.contract.getFunction("lastOrder")()).id).toBe(9n);
  });
});
