import { addChain, createProjectFixture, FINAL, fund, setOrderCall, startRecorderChain, startRpcInterceptor, waitForStatus, type ProjectFixture, type RecorderChain, type RpcInterceptor } from "@relay/testing";
import { Interface } from "ethers";
import { sendTransaction, startHarness, type Harness } from "../support/harness";

/**
 * A wallet's transactions are mined in nonce order, so a call runs on the state its wallet's
 * earlier transactions leave, not on the latest block its simulation saw. These chains mine on
 * their own schedule (interval mining, or only when the test says), as real chains do, so several
 * of a wallet's transactions wait for the same block.
 */
describe("gas and simulation after the wallet's transactions in flight", () => {
  let h: Harness;
  let interval: RecorderChain;
  let manual: RecorderChain;
  let noSimulate: RecorderChain;
  let raced: RecorderChain;
  let interceptor: RpcInterceptor;
  let racer: RpcInterceptor;
  const simulateCalls: string[] = [];
  /** Calldata (lower-case hex) whose estimate is answered only after a block was mined meanwhile. */
  let mineDuringEstimateOf = "";

  beforeAll(async () => {
    [interval, manual, noSimulate, raced] = await Promise.all([
      startRecorderChain({ chainId: 31_240 }),
      startRecorderChain({ chainId: 31_241 }),
      startRecorderChain({ chainId: 31_242 }),
      startRecorderChain({ chainId: 31_243 }),
    ]);
    await interval.recorder.provider.send("evm_setAutomine", [false]);
    await interval.recorder.provider.send("evm_setIntervalMining", [2]);
    for (const chain of [manual, noSimulate, raced]) await chain.recorder.provider.send("evm_setAutomine", [false]);
    // A node from before eth_simulateV1: it answers "method not found".
    interceptor = await startRpcInterceptor(noSimulate.anvil.rpcUrl, (call) => {
      if (call.method !== "eth_simulateV1") return undefined;
      simulateCalls.push(call.method);
      return { error: { code: -32601, message: "the method eth_simulateV1 does not exist/is not available" } };
    });
    // The node answers one estimate as of the block it was asked at, and mines the next block
    // before the answer arrives: the wallet's transaction in the pool is mined meanwhile.
    racer = await startRpcInterceptor(raced.anvil.rpcUrl, async (call) => {
      const data = (call.params[0] as { data?: string } | undefined)?.data?.toLowerCase();
      if (call.method !== "eth_estimateGas" || !mineDuringEstimateOf || data !== mineDuringEstimateOf) return undefined;
      mineDuringEstimateOf = "";
      const answer = (await (await fetch(raced.anvil.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(call) })).json()) as { result?: unknown; error?: { code: number; message: string } };
      await raced.recorder.provider.send("evm_mine", []);
      await new Promise((r) => setTimeout(r, 500));
      return answer.error ? { error: answer.error } : { result: answer.result };
    });
    h = await startHarness("state-gas");
    await addChain(h.db, interval.anvil);
    await addChain(h.db, manual.anvil, { stuckAfterSeconds: 2 });
    await addChain(h.db, { ...noSimulate.anvil, rpcUrl: interceptor.url });
    await addChain(h.db, { ...raced.anvil, rpcUrl: racer.url });
    await h.startTxWorker({ concurrency: 32 });
  });
  afterAll(async () => {
    await h?.close();
    await interceptor?.close();
    await racer?.close();
    await Promise.all([interval?.stop(), manual?.stop(), noSimulate?.stop(), raced?.stop()]);
  });

  const newProject = async (chain: RecorderChain): Promise<ProjectFixture> => {
    const project = await createProjectFixture(h.db, h.kek, { wallets: 1 });
    await fund(chain.anvil.rpcUrl, project.wallets.map((w) => w.address));
    return project;
  };
  const send = async (project: ProjectFixture, chain: RecorderChain, call: { functionSignature: string; args: Record<string, unknown> }) => {
    const res = await sendTransaction(h.baseUrl, project, { chainId: chain.anvil.chainId, contractAddress: chain.recorder.address, ...call });
    expect(res.status).toBe(200);
    return res.body.transactionId as string;
  };
  const waitFor = (project: ProjectFixture, id: string, statuses = FINAL, timeoutMs = 60_000) => waitForStatus(h.baseUrl, project.apiKey, project.projectId, id, statuses, timeoutMs);
  /** Mines a block every 300 ms until `until` settles. */
  const mining = async <T>(chain: RecorderChain, until: Promise<T>): Promise<T> => {
    let done = false;
    const miner = (async () => {
      while (!done) {
        await chain.recorder.provider.send("evm_mine", []);
        await new Promise((r) => setTimeout(r, 300));
      }
    })();
    try {
      return await until;
    } finally {
      done = true;
      await miner;
    }
  };

  it("confirms every call of a burst whose storage writes cost 20,000 gas or 2,900 depending on the call before", async () => {
    const project = await newProject(interval);
    const owner = project.wallets[0]!.address;
    // What every call of the burst is first simulated against: a full order, mined. Calls that set
    // a full order after an empty one write fresh slots, which the latest block does not show.
    const first = await send(project, interval, setOrderCall(100, owner, [1, 2, 3]));
    expect((await waitFor(project, first)).status).toBe("CONFIRMED");

    const ids = await Promise.all(Array.from({ length: 40 }, (_, i) => send(project, interval, setOrderCall(i + 1, owner, i % 2 === 0 ? [] : [1, 2, 3]))));
    const final = await Promise.all(ids.map((id) => waitFor(project, id, FINAL, 90_000)));
    const counts: Record<string, number> = {};
    for (const tx of final) counts[tx.status] = (counts[tx.status] ?? 0) + 1;
    expect(counts).toEqual({ CONFIRMED: 40 });
  }, 120_000);

  it("sends a call that reverts against the latest block but not after the wallet's earlier call that it needs", async () => {
    const project = await newProject(manual);
    const armed = await send(project, manual, { functionSignature: "armTrap()", args: {} });
    await mining(manual, waitFor(project, armed));

    const disarm = await send(project, manual, { functionSignature: "disarmTrap()", args: {} });
    await waitFor(project, disarm, ["SUBMITTED"]);
    // Reverts with "trap armed" against the latest block; the disarm before it is not mined yet.
    const needsDisarm = await send(project, manual, { functionSignature: "revertsWhenMined(uint256 x)", args: { x: 7 } });
    const sent = await waitFor(project, needsDisarm, ["SUBMITTED", ...FINAL]);
    expect([sent.status, sent.error]).toEqual(["SUBMITTED", null]);

    const [first, second] = await mining(manual, Promise.all([waitFor(project, disarm), waitFor(project, needsDisarm)]));
    expect([first.status, second.status]).toEqual(["CONFIRMED", "CONFIRMED"]);
    expect(Number(second.nonce)).toBe(Number(first.nonce) + 1);
  }, 90_000);

  it("does not send a call that reverts after the wallet's earlier call, and the wallet's next call goes through", async () => {
    const project = await newProject(manual);
    const arm = await send(project, manual, { functionSignature: "armTrap()", args: {} });
    await waitFor(project, arm, ["SUBMITTED"]);
    // Passes against the latest block (the trap is not armed there) and reverts after the arming.
    const doomed = await send(project, manual, { functionSignature: "revertsWhenMined(uint256 x)", args: { x: 8 } });
    const refused = await waitFor(project, doomed);
    expect(refused.status).toBe("INVALID");
    expect(refused.error).toMatch(/simulation reverted after the wallet's 1 earlier transaction\(s\) still in flight: trap armed/);
    expect(refused.attempts).toEqual([]);

    // Its nonce is filled with a self-transfer, so the call after it is mined.
    const next = await send(project, manual, setOrderCall(9, project.wallets[0]!.address, [1]));
    const [armedTx, nextTx] = await mining(manual, Promise.all([waitFor(project, arm), waitFor(project, next)]));
    expect([armedTx.status, nextTx.status]).toEqual(["CONFIRMED", "CONFIRMED"]);
    expect(Number(nextTx.nonce)).toBe(Number(armedTx.nonce) + 2);
    const passed = await manual.recorder.contract.queryFilter(manual.recorder.contract.filters.TrapPassed!());
    expect(passed.filter((log) => (log as { args?: { x?: bigint } }).args?.x === 8n)).toEqual([]);
  }, 90_000);

  it("checks the gas limit against the block the estimate was made at, not a later one", async () => {
    const project = await newProject(raced);
    const owner = project.wallets[0]!.address;
    const full = await send(project, raced, setOrderCall(1, owner, [1, 2, 3]));
    await mining(raced, waitFor(project, full));

    const empty = await send(project, raced, setOrderCall(2, owner, []));
    await waitFor(project, empty, ["SUBMITTED"]);
    // Estimated while the empty order waits in the pool (cheap: it rewrites what is there), answered
    // once the empty order is mined. Against the new block nothing of the wallet is in flight, yet
    // the estimate was made before the slots were emptied.
    const refillCall = setOrderCall(3, owner, [1, 2, 3]);
    mineDuringEstimateOf = new Interface([`function ${refillCall.functionSignature}`]).encodeFunctionData("setOrder", [[3, owner, [1, 2, 3]]]).toLowerCase();
    const refill = await send(project, raced, refillCall);
    await waitFor(project, refill, ["SUBMITTED"]);
    expect(mineDuringEstimateOf).toBe("");
    expect((await waitFor(project, empty)).status).toBe("CONFIRMED");
    expect((await mining(raced, waitFor(project, refill))).status).toBe("CONFIRMED");
  }, 90_000);

  it("sizes the gas limit against the pending state on a node without eth_simulateV1, asking for it once", async () => {
    const project = await newProject(noSimulate);
    const owner = project.wallets[0]!.address;
    const full = await send(project, noSimulate, setOrderCall(1, owner, [1, 2, 3]));
    await mining(noSimulate, waitFor(project, full));

    const empty = await send(project, noSimulate, setOrderCall(2, owner, []));
    await waitFor(project, empty, ["SUBMITTED"]);
    // Against the latest block its writes change nothing; after the empty order they fill fresh slots.
    const refill = await send(project, noSimulate, setOrderCall(3, owner, [1, 2, 3]));
    await waitFor(project, refill, ["SUBMITTED"]);
    const [a, b] = await mining(noSimulate, Promise.all([waitFor(project, empty), waitFor(project, refill)]));
    expect([a.status, b.status]).toEqual(["CONFIRMED", "CONFIRMED"]);
    expect(simulateCalls).toHaveLength(1);
  }, 90_000);
});
