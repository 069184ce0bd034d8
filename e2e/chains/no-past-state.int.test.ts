import { Wallet } from "ethers";
import { addChain, createProjectFixture, fund, setOrderCall, startRecorderChain, startRpcInterceptor, waitForStatus, type RecorderChain } from "@relay/testing";
import { sendTransaction, startHarness, type Harness } from "../support/harness";

/** anvil as an RPC that keeps only the latest state: a nonce count at a past block is refused. */
const latestStateOnly = (upstream: string) =>
  startRpcInterceptor(upstream, (call) => {
    const tag = call.params[1];
    if (call.method === "eth_getTransactionCount" && typeof tag === "string" && tag.startsWith("0x")) {
      return { error: { code: -32000, message: `missing trie node ${"ab".repeat(32)} (path ) state is not available` } };
    }
    return undefined;
  });

describe("an RPC that keeps no past state", () => {
  let h: Harness;
  let chain: RecorderChain;
  let proxy: Awaited<ReturnType<typeof latestStateOnly>>;

  beforeAll(async () => {
    chain = await startRecorderChain({ chainId: 31_233 });
    await chain.recorder.provider.send("evm_setAutomine", [false]);
    proxy = await latestStateOnly(chain.anvil.rpcUrl);
    h = await startHarness("no-past-state");
    await addChain(h.db, { ...chain.anvil, rpcUrl: proxy.url }, { stuckAfterSeconds: 1 });
    await h.startTxWorker();
  });
  afterAll(async () => {
    await h?.close();
    await proxy?.close();
    await chain?.stop();
  });

  it("still fails a transaction whose nonce another transaction used, deciding on the latest count", async () => {
    const key = Wallet.createRandom();
    const owner = await createProjectFixture(h.db, h.kek, { privateKeys: [key.privateKey] });
    await fund(chain.anvil.rpcUrl, [key.address]);
    await chain.recorder.provider.send("evm_mine", []);
    const res = await sendTransaction(h.baseUrl, owner, { chainId: chain.anvil.chainId, contractAddress: chain.recorder.address, ...setOrderCall(3, key.address) });
    expect(res.status).toBe(200);
    const id = res.body.transactionId as string;
    const submitted = await waitForStatus(h.baseUrl, owner.apiKey, owner.projectId, id, ["SUBMITTED"]);
    const attempt = submitted.attempts[0]!;
    expect(await chain.recorder.provider.send("anvil_dropTransaction", [attempt.hash])).toBe(attempt.hash);
    await key.connect(chain.recorder.provider).sendTransaction({ to: key.address, value: 0n, nonce: Number(attempt.nonce) });
    for (let i = 0; i < 3; i++) await chain.recorder.provider.send("evm_mine", []);

    const tx = await waitForStatus(h.baseUrl, owner.apiKey, owner.projectId, id, undefined, 20_000);
    expect(tx.status).toBe("FAILED");
    expect(tx.history.at(-1)?.reason).toBe(`nonce ${attempt.nonce} of ${key.address} was used by another transaction`);
  });
});
