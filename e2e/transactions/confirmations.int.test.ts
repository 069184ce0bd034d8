import { JsonRpcProvider, Wallet } from "ethers";
import { createProjectFixture, setOrderCall, startRecorderChain, type AnvilInstance, type DeployedRecorder, type ProjectFixture, type RecorderChain } from "@relay/testing";
import { sendTransaction, startHarness, type Harness } from "../support/harness";
import { addChain, fund, readTransaction, waitForStatus, type TransactionView } from "@relay/testing";

/** The read endpoint's view, with the block the transaction was counted in. */
type View = TransactionView & { blockNumber: string | null };

const CONFIRMATIONS = 3;
/** Long enough for the reorganisation in the last test to be staged before the worker replaces anything. */
const STUCK_AFTER_SECONDS = 5;
/** How long after the worker's receipt index starts it trusts its blocks (receipt-index.ts: 5 s + a block). */
const RECEIPT_INDEX_MARGIN_MS = 6_000;
/** Five of the chain's 200 ms looks: the worker has seen the node's new head several times. */
const SETTLE_MS = 1_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("a chain that needs 3 confirmations, mined block by block", () => {
  let h: Harness;
  let chain: RecorderChain;
  let anvil: AnvilInstance;
  let recorder: DeployedRecorder;
  let rpc: JsonRpcProvider;
  let project: ProjectFixture;
  /** When the worker first followed a transaction on this chain. */
  let firstSubmittedAt: number | undefined;

  const read = (id: string) => readTransaction(h.baseUrl, project.apiKey, project.projectId, id) as Promise<View>;
  const mine = async (blocks = 1) => {
    for (let i = 0; i < blocks; i++) await rpc.send("evm_mine", []);
    return rpc.getBlockNumber();
  };
  /** Sends setOrder(id) and waits until its first attempt is broadcast (SUBMITTED, in the mempool). */
  const sendSubmitted = async (id: number) => {
    const res = await sendTransaction(h.baseUrl, project, { chainId: anvil.chainId, contractAddress: recorder.address, ...setOrderCall(id, project.wallets[0]!.address) });
    expect(res.status).toBe(200);
    const transactionId = res.body.transactionId as string;
    const submitted = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, transactionId, ["SUBMITTED"]);
    expect(submitted.attempts).toHaveLength(1);
    firstSubmittedAt ??= Date.now();
    return { transactionId, hash: submitted.attempts[0]!.hash };
  };
  /** After the worker has had time to look: still SUBMITTED, counted in no block. */
  const expectStillSubmitted = async (transactionId: string) => {
    await sleep(SETTLE_MS);
    const tx = await read(transactionId);
    expect(tx.status).toBe("SUBMITTED");
    expect(tx.blockNumber).toBeNull();
    return tx;
  };
  const waitForFinal = async (transactionId: string) => (await waitForStatus(h.baseUrl, project.apiKey, project.projectId, transactionId)) as View;

  beforeAll(async () => {
    chain = await startRecorderChain({ chainId: 31_261 }); // deploying needs mining: before automine goes off
    ({ anvil, recorder } = chain);
    rpc = recorder.provider;
    await rpc.send("evm_setAutomine", [false]);
    h = await startHarness("confirmations");
    await addChain(h.db, anvil, { confirmations: CONFIRMATIONS, stuckAfterSeconds: STUCK_AFTER_SECONDS });
    project = await createProjectFixture(h.db, h.kek, { wallets: 1 });
    await fund(anvil.rpcUrl, [project.wallets[0]!.address]);
    await h.startTxWorker();
  });
  afterAll(async () => {
    await h?.close();
    await chain?.stop();
  });

  it("keeps a mined transaction SUBMITTED until the head is 2 blocks past its block, then CONFIRMED in that block", async () => {
    const { transactionId, hash } = await sendSubmitted(1);

    const minedIn = await mine();
    const receipt = await rpc.getTransactionReceipt(hash);
    expect(receipt?.status).toBe(1);
    expect(receipt?.blockNumber).toBe(minedIn);
    await expectStillSubmitted(transactionId); // 1 confirmation

    expect(await mine()).toBe(minedIn + 1);
    await expectStillSubmitted(transactionId); // 2 confirmations

    expect(await mine()).toBe(minedIn + 2);
    const tx = await waitForFinal(transactionId);
    expect(tx.status).toBe("CONFIRMED");
    expect(tx.hash).toBe(hash);
    expect(tx.blockNumber).toBe(String(minedIn));
    expect(tx.history.map((c) => c.status)).toEqual(["PENDING", "SUBMITTED", "CONFIRMED"]);
    expect(await rpc.getBlockNumber()).toBe(minedIn + 2);
    expect((await recorder.contract.getFunction("lastOrder")()).id).toBe(1n);
  });

  it("counts from the block a reorganisation moved the transaction to, not the block it was first mined in", async () => {
    const { transactionId, hash } = await sendSubmitted(2);
    const firstBlock = await mine();
    expect((await rpc.getTransactionReceipt(hash))?.blockNumber).toBe(firstBlock);
    await mine();
    await expectStillSubmitted(transactionId); // 2 confirmations in its first block

    // Replace both blocks: the first new one empty, the second holding the same signed bytes.
    const raw = (await rpc.send("eth_getRawTransactionByHash", [hash])) as string;
    await rpc.send("anvil_reorg", [2, [[raw, 1]]]);
    expect(await rpc.getBlockNumber()).toBe(firstBlock + 1);
    expect((await rpc.getTransactionReceipt(hash))?.blockNumber).toBe(firstBlock + 1);

    // 3 blocks past where it was first seen, but only 2 on the block it is in now.
    await mine();
    await expectStillSubmitted(transactionId);

    await mine();
    const tx = await waitForFinal(transactionId);
    expect(tx.status).toBe("CONFIRMED");
    expect(tx.hash).toBe(hash);
    expect(tx.blockNumber).toBe(String(firstBlock + 1));
    expect(tx.history.map((c) => c.status)).toEqual(["PENDING", "SUBMITTED", "CONFIRMED"]);
    expect((await recorder.contract.getFunction("lastOrder")()).id).toBe(2n);
  });

  it("does not confirm a transaction a reorganisation dropped: it is replaced at the same nonce and confirmed in its new block", async () => {
    const { transactionId, hash } = await sendSubmitted(3);
    const firstBlock = await mine();
    expect((await rpc.getTransactionReceipt(hash))?.blockNumber).toBe(firstBlock);
    await expectStillSubmitted(transactionId);

    // The block is replaced by an empty one, and anvil (unlike geth) does not put its
    // transactions back into the mempool: the attempt is gone.
    await rpc.send("anvil_reorg", [1, []]);
    expect(await rpc.getTransactionReceipt(hash)).toBeNull();
    expect((await rpc.send("txpool_content", [])).pending).toEqual({});
    await mine(2); // 3 blocks past the block it was seen in
    await expectStillSubmitted(transactionId);

    // Not mined after the stuck time: a replacement, the only way the nonce gets used now.
    const deadline = Date.now() + 20_000;
    let replaced = await read(transactionId);
    // The replacement is stored before it is broadcast; the transaction's hash moves to it once sent.
    while (replaced.attempts.length < 2 || replaced.hash !== replaced.attempts.at(-1)!.hash) {
      if (Date.now() > deadline) throw new Error(`never replaced: ${JSON.stringify(replaced)}`);
      await sleep(100);
      replaced = await read(transactionId);
    }
    const [original, replacement] = replaced.attempts as [View["attempts"][number], View["attempts"][number]];
    expect(original.hash).toBe(hash);
    expect(replacement.nonce).toBe(original.nonce);

    const replacementBlock = await mine();
    expect((await rpc.getTransactionReceipt(replacement.hash))?.blockNumber).toBe(replacementBlock);
    await mine(2);
    const tx = await waitForFinal(transactionId);
    expect(tx.status).toBe("CONFIRMED");
    expect(tx.hash).toBe(replacement.hash);
    expect(tx.blockNumber).toBe(String(replacementBlock));
    expect(await rpc.getTransactionReceipt(hash)).toBeNull();
    expect((await recorder.contract.getFunction("lastOrder")()).id).toBe(3n);
  });

  it("confirms its own attempt when it is mined in a block the worker read before a reorganisation shortened the chain", async () => {
    // The worker's receipt index trusts its own reading of a block only for attempts sent well
    // after it started (it started on the first transaction above; run alone, start it here).
    if (firstSubmittedAt === undefined) {
      const warmUp = await sendSubmitted(40);
      await mine(CONFIRMATIONS);
      expect((await waitForFinal(warmUp.transactionId)).status).toBe("CONFIRMED");
    }
    await sleep(Math.max(0, firstSubmittedAt! + RECEIPT_INDEX_MARGIN_MS - Date.now()));

    const snapshot = (await rpc.send("evm_snapshot", [])) as string;
    const before = await rpc.getBlockNumber();
    const { transactionId, hash } = await sendSubmitted(4);
    const raw = (await rpc.send("eth_getRawTransactionByHash", [hash])) as string;
    expect(await rpc.send("anvil_dropTransaction", [hash])).toBe(hash);
    // While the worker follows it, three empty blocks: it reads them, without the transaction.
    await mine(3);
    await sleep(SETTLE_MS);

    // A reorganisation to a shorter chain, and the same signed bytes mined again, in a block whose
    // number the worker has already read.
    expect(await rpc.send("evm_revert", [snapshot])).toBe(true);
    expect(await rpc.getBlockNumber()).toBe(before);
    expect(await rpc.send("eth_sendRawTransaction", [raw])).toBe(hash);
    const minedIn = await mine();
    expect(minedIn).toBe(before + 1);
    expect(await mine(2)).toBe(before + 3);

    // Once the stuck time has passed, the wallet's nonce on chain is past the transaction's: the
    // worker must find its own attempt there, not conclude that another transaction used it.
    const tx = await waitForFinal(transactionId);
    expect(tx.status).toBe("CONFIRMED");
    expect(tx.hash).toBe(hash);
    expect(tx.blockNumber).toBe(String(minedIn));
    expect(tx.attempts).toHaveLength(1);
  });

  it("still fails a transaction whose nonce a transaction that is not ours used", async () => {
    // A wallet whose key the test holds too, so it can spend the relay's nonce behind its back.
    const key = Wallet.createRandom();
    const other = await createProjectFixture(h.db, h.kek, { privateKeys: [key.privateKey] });
    await fund(anvil.rpcUrl, [key.address]);
    const res = await sendTransaction(h.baseUrl, other, { chainId: anvil.chainId, contractAddress: recorder.address, ...setOrderCall(5, key.address) });
    expect(res.status).toBe(200);
    const transactionId = res.body.transactionId as string;
    const submitted = await waitForStatus(h.baseUrl, other.apiKey, other.projectId, transactionId, ["SUBMITTED"]);
    const [attempt] = submitted.attempts;
    expect(await rpc.send("anvil_dropTransaction", [attempt!.hash])).toBe(attempt!.hash);
    await key.connect(rpc).sendTransaction({ to: key.address, value: 0n, nonce: Number(attempt!.nonce) });
    // The other transaction's block, with 1 of the chain's 3 confirmations: past the stuck time the
    // nonce is used, but no verdict yet (another node behind the same RPC may not have that block).
    await mine();
    await sleep(STUCK_AFTER_SECONDS * 1000 + SETTLE_MS);
    expect((await readTransaction(h.baseUrl, other.apiKey, other.projectId, transactionId)).status).toBe("SUBMITTED");
    await mine(CONFIRMATIONS - 1);

    const tx = await waitForStatus(h.baseUrl, other.apiKey, other.projectId, transactionId);
    expect(tx.status).toBe("FAILED");
    expect(tx.history.at(-1)?.reason).toBe(`nonce ${attempt!.nonce} of ${key.address} was used by another transaction`);
    expect(await rpc.getTransactionReceipt(attempt!.hash)).toBeNull();
  });
});
