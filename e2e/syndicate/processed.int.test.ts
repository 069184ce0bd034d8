import { JsonRpcProvider } from "ethers";
import { SyndicateClient, SyndicateEnvironment } from "@syndicateio/syndicate-node";
import { addChain, createProjectFixture, deployRecorder, fund, startAnvil, waitForStatus, type AnvilInstance, type ProjectFixture } from "@relay/testing";
import { startHarness, type Harness } from "../support/harness";

/**
 * Syndicate's PROCESSED ("in a block") through the pinned SDK, on a chain that needs 3
 * confirmations: between the block and the third confirmation, the attempt reads PROCESSED with
 * its block, while the relay's own read keeps SUBMITTED and no block (docs/syndicate.md).
 */
describe("Syndicate's PROCESSED: in a block, short of the chain's confirmations", () => {
  const CONFIRMATIONS = 3;
  let h: Harness;
  let anvil: AnvilInstance;
  let provider: JsonRpcProvider;
  let recorderAddress: string;
  let project: ProjectFixture;
  let sdk: SyndicateClient;

  const ownRead = async (id: string) => {
    const res = await fetch(`${h.baseUrl}/transact/project/${project.projectId}/transactions/${id}`, { headers: { authorization: `Bearer ${project.apiKey}` } });
    return (await res.json()) as { status: string; blockNumber: string | null };
  };
  /** Polls the SDK's read until its current attempt has `status` (the tx-worker looks every 200 ms). */
  const attemptReads = async (id: string, status: string) => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const tx = await sdk.wallet.getTransactionRequest(project.projectId, id);
      const attempt = tx.transactionAttempts?.at(-1);
      if (attempt?.status === status) return attempt;
      if (Date.now() > deadline) throw new Error(`attempt of ${id} is ${attempt?.status ?? "missing"}, not ${status}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 31_019, port: 18_111 });
    const recorder = await deployRecorder(anvil.rpcUrl);
    recorderAddress = recorder.address;
    recorder.provider.destroy();
    provider = new JsonRpcProvider(anvil.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
    h = await startHarness("syndicate-processed");
    await addChain(h.db, anvil, { confirmations: CONFIRMATIONS });
    project = await createProjectFixture(h.db, h.kek, { wallets: 1 });
    await fund(anvil.rpcUrl, project.wallets.map((w) => w.address));
    await h.startTxWorker();
    (SyndicateEnvironment as { Production: string }).Production = h.baseUrl;
    sdk = new SyndicateClient({ token: project.apiKey });
  });

  afterAll(async () => {
    await h.close();
    provider.destroy();
    await anvil.stop();
  });

  it("reads PENDING once sent, PROCESSED with its block once mined, CONFIRMED at the third confirmation; our own read stays SUBMITTED until then", async () => {
    await provider.send("evm_setAutomine", [false]);
    const { transactionId } = await sdk.transact.sendTransaction({
      projectId: project.projectId,
      chainId: anvil.chainId,
      contractAddress: recorderAddress,
      functionSignature: "function setOrder((uint256 id, address owner, uint8[] flags) order)",
      args: { order: { id: "1", owner: project.wallets[0]!.address, flags: [1] } },
    });
    await waitForStatus(h.baseUrl, project.apiKey, project.projectId, transactionId, ["SUBMITTED"]);
    // Broadcast, in no block yet: Syndicate's PENDING ("signed and sent").
    expect((await attemptReads(transactionId, "PENDING")).block).toBe(0);

    await provider.send("evm_mine", []);
    const minedIn = await provider.getBlockNumber();
    const processed = await attemptReads(transactionId, "PROCESSED");
    expect(processed.block).toBe(minedIn);
    expect(processed.reverted).toBe(false);
    // Found by the PROCESSED filter, counted as submitted; the relay's own read is unchanged.
    const listed = await sdk.wallet.getTransactionsByProject(project.projectId, { status: "PROCESSED" });
    expect(listed.transactionAttempts.map((a) => a.transactionId)).toEqual([transactionId]);
    expect((await sdk.wallet.getProjectTransactionStats(project.projectId)).numberOfSubmittedTransactions).toBe(1);
    expect(await ownRead(transactionId)).toMatchObject({ status: "SUBMITTED", blockNumber: null });

    await provider.send("anvil_mine", ["0x2"]);
    const confirmed = await attemptReads(transactionId, "CONFIRMED");
    expect(confirmed.block).toBe(minedIn);
    expect(await ownRead(transactionId)).toMatchObject({ status: "CONFIRMED", blockNumber: String(minedIn) });
    expect((await sdk.wallet.getTransactionsByProject(project.projectId, { status: "PROCESSED" })).total).toBe(0);
  });
});
