import { JsonRpcProvider, toBeHex } from "ethers";
import {
  addChain,
  createProjectFixture,
  deployRecorder,
  fund,
  readTransaction,
  startAnvil,
  waitForStatus,
  type AnvilInstance,
  type DeployedRecorder,
  type ProjectFixture,
} from "@relay/testing";
import { post, startHarness, type Harness } from "../support/harness";

/**
 * POST …/transactions/{id}/speedUp: a transaction priced below the market (the next block's base
 * fee raised past its max fee with anvil_setNextBlockBaseFeePerGas) is stuck; the chain's stuck
 * time is long, so only the request replaces it. The replacement confirms at the higher fee.
 */
describe("speeding up a transaction", () => {
  let h: Harness;
  let anvil: AnvilInstance;
  let recorder: DeployedRecorder;
  let rpc: JsonRpcProvider;
  let project: ProjectFixture;

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 31_612 });
    recorder = await deployRecorder(anvil.rpcUrl);
    rpc = new JsonRpcProvider(anvil.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
    await rpc.send("evm_setAutomine", [false]);
    h = await startHarness("speed-up-tx");
    await addChain(h.db, anvil, { stuckAfterSeconds: 600 });
    project = await createProjectFixture(h.db, h.kek, { wallets: 1 });
    await fund(anvil.rpcUrl, [project.wallets[0]!.address]);
    await h.startTxWorker();
  });
  afterAll(async () => {
    await h?.close();
    recorder?.provider.destroy();
    rpc?.destroy();
    await anvil?.stop();
  });

  it("replaces a stuck attempt at once with higher fees, and the transaction confirms at the higher fee", async () => {
    const res = await post(
      h.baseUrl,
      "/transact/sendTransaction",
      {
        projectId: project.projectId,
        chainId: anvil.chainId,
        contractAddress: recorder.address,
        functionSignature: "setOrder((uint256 id, address owner, uint8[] flags) order)",
        args: { order: { id: 7, owner: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", flags: [] } },
      },
      project.apiKey,
    );
    const id = res.body.transactionId as string;
    const submitted = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id, ["SUBMITTED"]);
    const original = submitted.attempts[0]!;
    const originalMax = BigInt(original.maxFeePerGas!);

    // The market moves past the attempt's max fee: the block is mined without it.
    await rpc.send("anvil_setNextBlockBaseFeePerGas", [toBeHex(originalMax * 2n)]);
    await rpc.send("evm_mine", []);
    expect(await rpc.getTransactionReceipt(original.hash)).toBeNull();
    expect((await readTransaction(h.baseUrl, project.apiKey, project.projectId, id)).status).toBe("SUBMITTED");

    const speedUp = await post(h.baseUrl, `/transact/project/${project.projectId}/transactions/${id}/speedUp`, {}, project.apiKey);
    expect(speedUp.status).toBe(200);
    expect(speedUp.body).toEqual({ transactionId: id, status: "SUBMITTED", speedUp: "requested", capped: false });

    const deadline = Date.now() + 20_000;
    let replaced = await readTransaction(h.baseUrl, project.apiKey, project.projectId, id);
    // The replacement is stored before it is broadcast; the transaction's hash moves to it once sent.
    while (replaced.attempts.length < 2 || replaced.hash !== replaced.attempts.at(-1)!.hash) {
      if (Date.now() > deadline) throw new Error(`not replaced: ${JSON.stringify(replaced)}`);
      await new Promise((r) => setTimeout(r, 100));
      replaced = await readTransaction(h.baseUrl, project.apiKey, project.projectId, id);
    }
    const second = replaced.attempts[1]!;
    expect(second.cancel).toBe(false);
    expect(second.nonce).toBe(original.nonce);
    expect(BigInt(second.maxFeePerGas!)).toBeGreaterThan(originalMax * 2n);
    expect(replaced.history.at(-1)!.reason).toBe("speed-up requested; replaced with higher fees");

    await rpc.send("evm_mine", []);
    const tx = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id);
    expect(tx.status).toBe("CONFIRMED");
    expect(tx.hash).toBe(second.hash);
    const receipt = await rpc.getTransactionReceipt(second.hash);
    // Paid more per gas than the original could ever have: the higher fee is what confirmed it.
    expect(receipt!.gasPrice).toBeGreaterThan(originalMax);
    expect(await rpc.getTransactionReceipt(original.hash)).toBeNull();
    expect((await recorder.contract.getFunction("lastOrder")()).id).toBe(7n);

    // Final now: nothing to speed up.
    const again = await post(h.baseUrl, `/transact/project/${project.projectId}/transactions/${id}/speedUp`, {}, project.apiKey);
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/is CONFIRMED/);
  });

  it("answers capped when the transaction's own maxFeePerGas leaves no room for a replacement, names the cap, and the worker keeps the attempt out there", async () => {
    // A cap between what the next block asks (base fee + tip) and the usual price (2 × base fee +
    // tip): the attempt goes out at the cap, and no replacement 12.5 % above it fits under it.
    const base = (await rpc.getBlock("latest"))!.baseFeePerGas!;
    const fees = await rpc.getFeeData();
    const cap = (base + fees.maxPriorityFeePerGas! + fees.maxFeePerGas!) / 2n;
    const res = await post(
      h.baseUrl,
      "/transact/sendTransaction",
      {
        projectId: project.projectId,
        chainId: anvil.chainId,
        contractAddress: recorder.address,
        functionSignature: "setOrder((uint256 id, address owner, uint8[] flags) order)",
        args: { order: { id: 8, owner: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", flags: [] } },
        maxFeePerGas: cap.toString(),
      },
      project.apiKey,
    );
    const id = res.body.transactionId as string;
    const submitted = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id, ["SUBMITTED"]);
    const original = submitted.attempts[0]!;
    expect(BigInt(original.maxFeePerGas!)).toBe(cap);

    const speedUp = await post(h.baseUrl, `/transact/project/${project.projectId}/transactions/${id}/speedUp`, {}, project.apiKey);
    expect(speedUp.status).toBe(200);
    expect(speedUp.body).toMatchObject({ transactionId: id, status: "SUBMITTED", speedUp: "requested", capped: true });
    expect(speedUp.body.message).toContain(`the transaction's maxFeePerGas (max fee per gas at most ${cap} wei`);

    const deadline = Date.now() + 20_000;
    let tx = await readTransaction(h.baseUrl, project.apiKey, project.projectId, id);
    while (!tx.history.some((c) => /fee cap leaves no room/.test(c.reason ?? ""))) {
      if (Date.now() > deadline) throw new Error(`no capped note: ${JSON.stringify(tx.history)}`);
      await new Promise((r) => setTimeout(r, 100));
      tx = await readTransaction(h.baseUrl, project.apiKey, project.projectId, id);
    }
    expect(tx.attempts.map((a) => a.hash)).toEqual([original.hash]);

    await rpc.send("evm_mine", []);
    expect((await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id)).status).toBe("CONFIRMED");
  });
});
