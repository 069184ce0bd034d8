import { JsonRpcProvider } from "ethers";
import { createProjectFixture, deployRecorder, startAnvil, type AnvilInstance, type DeployedRecorder, type ProjectFixture } from "@relay/testing";
import { post, startHarness, type Harness } from "../support/harness";
import { addChain, fund, waitForStatus, type TransactionView } from "@relay/testing";

/** The read endpoint's view, with the fields this test looks at. */
type View = TransactionView & { chainId: number; blockNumber: string | null };

interface Node {
  anvil: AnvilInstance;
  recorder: DeployedRecorder;
  rpc: JsonRpcProvider;
}

async function startNode(chainId: number): Promise<Node> {
  const anvil = await startAnvil({ chainId });
  const recorder = await deployRecorder(anvil.rpcUrl);
  return { anvil, recorder, rpc: new JsonRpcProvider(anvil.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 }) };
}

describe("one project on two chains", () => {
  let h: Harness;
  let a: Node;
  let b: Node;
  let project: ProjectFixture;
  let wallet: string;

  /** Sends setOrder(id) to `node`'s chain and waits for the end. */
  const sendTo = async (node: Node, id: number): Promise<View> => {
    const res = await post(
      h.baseUrl,
      "/transact/sendTransaction",
      {
        projectId: project.projectId,
        chainId: node.anvil.chainId,
        contractAddress: node.recorder.address,
        functionSignature: "setOrder((uint256 id, address owner, uint8[] flags) order)",
        args: { order: { id, owner: wallet, flags: [node.anvil.chainId % 256] } },
      },
      project.apiKey,
    );
    expect(res.status).toBe(200);
    return (await waitForStatus(h.baseUrl, project.apiKey, project.projectId, res.body.transactionId as string)) as View;
  };

  /** The transaction is mined on `node` (with its calldata and chain id) and unknown to `other`. */
  const expectOnlyOn = async (tx: View, node: Node, other: Node) => {
    expect(tx.status).toBe("CONFIRMED");
    const receipt = await node.rpc.getTransactionReceipt(tx.hash!);
    expect(receipt?.status).toBe(1);
    expect(receipt?.from).toBe(wallet);
    expect(receipt?.blockNumber).toBe(Number(tx.blockNumber));
    expect((await node.rpc.getTransaction(tx.hash!))?.chainId).toBe(BigInt(node.anvil.chainId));
    expect(await other.rpc.getTransactionReceipt(tx.hash!)).toBeNull();
    expect(await other.rpc.getTransaction(tx.hash!)).toBeNull();
  };

  beforeAll(async () => {
    [a, b] = await Promise.all([startNode(31_231), startNode(31_232)]);
    // Same deployer, same nonce: the Recorder has the same address on both chains, so only the
    // chain id can tell the two destinations apart.
    expect(a.recorder.address).toBe(b.recorder.address);
    h = await startHarness("multi-chain");
    await addChain(h.db, a.anvil);
    await addChain(h.db, b.anvil);
    project = await createProjectFixture(h.db, h.kek, { wallets: 1 });
    wallet = project.wallets[0]!.address;
    await fund(a.anvil.rpcUrl, [wallet]);
    await fund(b.anvil.rpcUrl, [wallet]);
    await h.startTxWorker();
  });
  afterAll(async () => {
    await h?.close();
    for (const node of [a, b]) {
      node?.recorder.provider.destroy();
      node?.rpc.destroy();
      await node?.anvil.stop();
    }
  });

  it("confirms one transaction each way sent at once, each on its own chain, both at nonce 0 of the same wallet", async () => {
    const [onA, onB] = await Promise.all([sendTo(a, 101), sendTo(b, 201)]);
    expect([onA.chainId, onB.chainId]).toEqual([a.anvil.chainId, b.anvil.chainId]);
    expect([onA.from, onB.from]).toEqual([wallet, wallet]);
    expect([onA.nonce, onB.nonce]).toEqual(["0", "0"]);
    expect(onA.hash).not.toBe(onB.hash);
    await expectOnlyOn(onA, a, b);
    await expectOnlyOn(onB, b, a);
    expect((await a.recorder.contract.getFunction("lastOrder")()).id).toBe(101n);
    expect((await b.recorder.contract.getFunction("lastOrder")()).id).toBe(201n);
  });

  it("counts nonces per chain: more transactions interleaved on both chains continue each chain's own sequence", async () => {
    const sent = await Promise.all([sendTo(a, 102), sendTo(b, 202), sendTo(a, 103), sendTo(b, 203), sendTo(b, 204)]);
    const [a1, b1, a2, b2, b3] = sent as [View, View, View, View, View];
    expect([a1, a2].map((t) => t.nonce).sort()).toEqual(["1", "2"]);
    expect([b1, b2, b3].map((t) => t.nonce).sort()).toEqual(["1", "2", "3"]);
    for (const tx of [a1, a2]) await expectOnlyOn(tx, a, b);
    for (const tx of [b1, b2, b3]) await expectOnlyOn(tx, b, a);
    expect(await a.rpc.getTransactionCount(wallet)).toBe(3);
    expect(await b.rpc.getTransactionCount(wallet)).toBe(4);
  });
});
