import { JsonRpcProvider, toBeHex, zeroPadValue } from "ethers";
import { createChainRepository } from "@relay/db";
import { createProjectFixture, startAnvil, type AnvilInstance, type ProjectFixture } from "@relay/testing";
import { post, startHarness, type Harness } from "../support/harness";
import { fund, waitForStatus, type TransactionView } from "@relay/testing";

/** The read endpoint's view, with what this test looks at. */
type View = TransactionView & {
  blockNumber: string | null;
  attempts: (TransactionView["attempts"][number] & { type: number; maxPriorityFeePerGas: string | null })[];
};

/**
 * A contract that stores its first argument in slot 0: `PUSH1 4 CALLDATALOAD PUSH1 0 SSTORE STOP`,
 * behind init code that returns those 7 bytes. Written out by hand because the shared solc
 * fixtures target cancun, whose bytecode (PUSH0, MCOPY) a berlin node rejects.
 */
const STORE_RUNTIME = "600435600055" + "00";
const STORE_INIT = "0x" + "6007" + "80" + "600b" + "6000" + "39" + "6000" + "f3" + STORE_RUNTIME;

describe("a chain without EIP-1559 (anvil on the berlin hardfork)", () => {
  let h: Harness;
  let anvil: AnvilInstance;
  let rpc: JsonRpcProvider;
  let project: ProjectFixture;
  let store: string;
  /** The chain's cap, below the node's own gas price so that the cap decides the price. */
  let cap: bigint;

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 31_271, hardfork: "berlin" });
    rpc = new JsonRpcProvider(anvil.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
    const deployer = (await rpc.send("eth_accounts", []))[0] as string;
    const gasPrice = (await rpc.send("eth_gasPrice", [])) as string; // anvil would add EIP-1559 fields
    const deployment = (await rpc.send("eth_sendTransaction", [{ from: deployer, data: STORE_INIT, gasPrice }])) as string;
    store = (await rpc.getTransactionReceipt(deployment))!.contractAddress!;
    expect(await rpc.getCode(store)).toBe(`0x${STORE_RUNTIME}`);

    cap = BigInt(gasPrice) / 2n;
    h = await startHarness("legacy-chain");
    await createChainRepository(h.db).upsert({
      chainId: BigInt(anvil.chainId),
      name: `anvil ${anvil.chainId} (berlin)`,
      rpcUrls: [anvil.rpcUrl],
      confirmations: 1,
      lowBalanceThresholdWei: 0n,
      blockTimeMs: 200,
      stuckAfterSeconds: 30,
      maxFeePerGasCapWei: cap,
    });
    project = await createProjectFixture(h.db, h.kek, { wallets: 1 });
    await fund(anvil.rpcUrl, [project.wallets[0]!.address]);
    await h.startTxWorker();
  });
  afterAll(async () => {
    await h?.close();
    rpc?.destroy();
    await anvil?.stop();
  });

  it("has blocks without a base fee", async () => {
    const raw = (await rpc.send("eth_getBlockByNumber", ["latest", false])) as Record<string, unknown>;
    expect(raw).not.toHaveProperty("baseFeePerGas");
    expect((await rpc.getBlock("latest"))?.baseFeePerGas).toBeNull();
  });

  it("confirms a sendTransaction with a type-0 attempt priced with a gas price within the chain's cap", async () => {
    const marketPrice = BigInt((await rpc.send("eth_gasPrice", [])) as string);
    expect(marketPrice).toBeGreaterThan(cap);

    const res = await post(
      h.baseUrl,
      "/transact/sendTransaction",
      { projectId: project.projectId, chainId: anvil.chainId, contractAddress: store, functionSignature: "set(uint256 value)", args: { value: "4242" } },
      project.apiKey,
    );
    expect(res.status).toBe(200);
    const tx = (await waitForStatus(h.baseUrl, project.apiKey, project.projectId, res.body.transactionId as string)) as View;
    expect(tx.status).toBe("CONFIRMED");
    expect(tx.history.map((c) => c.status)).toEqual(["PENDING", "SUBMITTED", "CONFIRMED"]);

    // The attempt as the read endpoint reports it: legacy, priced at the cap, no EIP-1559 fields.
    expect(tx.attempts).toHaveLength(1);
    const [attempt] = tx.attempts;
    expect(attempt).toMatchObject({ hash: tx.hash, type: 0, gasPrice: cap.toString(), maxFeePerGas: null, maxPriorityFeePerGas: null });

    // And as the chain has it.
    const onChain = await rpc.getTransaction(tx.hash!);
    expect(onChain?.type).toBe(0);
    expect(onChain?.gasPrice).toBe(cap);
    expect(onChain?.maxFeePerGas).toBeNull();
    expect(onChain?.from).toBe(project.wallets[0]!.address);
    const receipt = await rpc.getTransactionReceipt(tx.hash!);
    expect(receipt?.status).toBe(1);
    expect(receipt?.blockNumber).toBe(Number(tx.blockNumber));
    expect(receipt?.gasPrice).toBe(cap);
    expect(await rpc.getStorage(store, 0)).toBe(zeroPadValue(toBeHex(4242), 32));
  });
});
