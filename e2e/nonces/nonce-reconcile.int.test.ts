import { Wallet, type JsonRpcProvider } from "ethers";
import { createChainRepository, createPool, createTransactionRepository, type Sql, type TransactionRepository } from "@relay/db";
import { createProducer, jobIdOf, type Producer } from "@relay/queue";
import { addChain, createProjectFixture, createTestDatabase, fund, startRecorderChain, waitForStatus, type AnvilInstance, type DeployedRecorder, type ProjectFixture, type RecorderChain, type TestDatabase } from "@relay/testing";
import { sendTransaction, startHarness, type Harness } from "../support/harness";
import { abandonNextNonce } from "../support/abandoned-nonce";

/**
 * The reconciler compares each active wallet's nonce counter with its chain (issue "Send
 * transaction"): a counter behind the chain is raised, an abandoned nonce the chain waits for is
 * filled. The chain's stuck time is an hour here, so nothing but the reconciler mends either. On a
 * database of its own: the reconciler checks every active wallet it finds, and other tests' chains
 * are gone once they end.
 */
describe("nonce reconciliation against the chain", () => {
  let database: TestDatabase;
  let h: Harness;
  let chain: RecorderChain;
  let anvil: AnvilInstance;
  let recorder: DeployedRecorder;
  let project: ProjectFixture;
  let pool: Sql & { end(): Promise<void> };
  let transactions: TransactionRepository;
  let producer: Producer;
  let provider: JsonRpcProvider;
  const key = Wallet.createRandom();

  const counter = async () =>
    BigInt((await pool.query<{ next: string }>(`SELECT next::text AS next FROM wallet_nonce WHERE chain_id = $1 AND address = $2`, [anvil.chainId, key.address])).rows[0]!.next);
  const send = async (n: number) => {
    const res = await sendTransaction(h.baseUrl, project, { chainId: anvil.chainId, contractAddress: recorder.address, functionSignature: "spend(uint256 n)", args: { n } });
    expect(res.status).toBe(200);
    return res.body.transactionId as string;
  };
  /** One run of the scheduled job, through the queue and the tx-worker's own registration. */
  const reconcile = async (): Promise<{ checked: number; raised: number; filled: number; unreachable: number }> => {
    const queue = producer.queue("reconcileNonces");
    await (await queue.getJob(jobIdOf("reconcileNonces", { v: 1 })))?.remove();
    const job = await producer.enqueue("reconcileNonces", { v: 1 });
    for (let i = 0; i < 300; i++) {
      const state = await job.getState();
      if (state === "completed") return (await queue.getJob(job.id!))!.returnvalue;
      if (state === "failed") throw new Error(`reconcileNonces failed: ${(await queue.getJob(job.id!))!.failedReason}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error("reconcileNonces did not finish");
  };

  beforeAll(async () => {
    chain = await startRecorderChain({ chainId: 31_091 });
    ({ anvil, recorder } = chain);
    database = await createTestDatabase();
    h = await startHarness("nonce-reconcile", {}, { databaseUrl: database.url });
    await addChain(h.db, anvil, { stuckAfterSeconds: 3600 });
    project = await createProjectFixture(h.db, h.kek, { privateKeys: [key.privateKey] });
    await fund(anvil.rpcUrl, [key.address]);
    pool = createPool({ url: database.url });
    transactions = createTransactionRepository({ sql: pool, db: h.db });
    producer = createProducer({ connection: h.redis, prefix: h.prefix });
    provider = recorder.provider;
    // A chain whose node is gone, with an active wallet: counted unreachable, the others still checked.
    await createChainRepository(h.db).upsert({ chainId: 31_092n, name: "gone", rpcUrls: ["http://127.0.0.1:9"], confirmations: 1, lowBalanceThresholdWei: 0n, blockTimeMs: 1000, stuckAfterSeconds: 30 });
    await pool.query(`INSERT INTO wallet_nonce (chain_id, address, next) VALUES (31092, $1, 5)`, [key.address]);
    await h.startTxWorker();
  });
  afterAll(async () => {
    await producer?.close();
    await h?.close();
    await pool?.end();
    await chain?.stop();
    await database?.drop();
  });

  it("raises a counter the chain has passed because the key sent outside the relay", async () => {
    const first = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, await send(1));
    expect(first).toMatchObject({ status: "CONFIRMED", nonce: "0" });
    expect(await counter()).toBe(1n);

    // The same key, used directly: nonces 1 and 2 go by without the relay.
    const outside = key.connect(provider);
    for (const nonce of [1, 2]) await (await outside.sendTransaction({ to: key.address, value: 0n, nonce })).wait();

    expect(await reconcile()).toMatchObject({ checked: 1, raised: 1, filled: 0, unreachable: 1 });
    expect(await counter()).toBe(3n);
    // Nothing left to mend: a second run changes nothing.
    expect(await reconcile()).toMatchObject({ raised: 0, filled: 0 });
  });

  it("fills the abandoned nonce a waiting transaction is stuck behind, without waiting for its stuck time", async () => {
    // A transaction that took nonce 3 and failed before sending anything.
    expect(await abandonNextNonce(transactions, { projectId: project.projectId, chainId: anvil.chainId, contractAddress: recorder.address, address: key.address })).toBe(3n);

    // The next one gets nonce 4, is sent, and waits in the node's pool behind the gap.
    const waiting = await send(2);
    expect(await waitForStatus(h.baseUrl, project.apiKey, project.projectId, waiting, ["SUBMITTED"])).toMatchObject({ nonce: "4" });
    await new Promise((r) => setTimeout(r, 1000));
    expect(await provider.getTransactionCount(key.address, "latest")).toBe(3);

    expect(await reconcile()).toMatchObject({ filled: 1, unreachable: 1 });
    expect(await waitForStatus(h.baseUrl, project.apiKey, project.projectId, waiting)).toMatchObject({ status: "CONFIRMED", nonce: "4" });
    const filler = (await pool.query<{ hash: string }>(`SELECT hash FROM nonce_filler WHERE chain_id = $1 AND address = $2 AND nonce = 3`, [anvil.chainId, key.address])).rows[0]!;
    expect(await provider.getTransaction(filler.hash)).toMatchObject({ from: key.address, to: key.address, value: 0n, nonce: 3 });
  });

  it("sends a mined transaction's own bytes again when its block was reorganised away, once it has been final for minutes", async () => {
    const id = await send(3);
    const mined = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id);
    expect(mined).toMatchObject({ status: "CONFIRMED", nonce: "5" });
    // Its block replaced by an empty one, deeper than its one confirmation; anvil does not take it
    // back into its pool: the chain waits at nonce 5 again, and nothing of the relay's would use it.
    await provider.send("anvil_reorg", [1, []]);
    expect(await provider.getTransactionCount(key.address, "latest")).toBe(5);

    // Just confirmed: a node a little behind looks the same, so nothing is sent yet.
    await reconcile();
    expect(await provider.getTransactionCount(key.address, "latest")).toBe(5);

    await pool.query(`UPDATE transaction SET updated_at = now() - interval '5 minutes' WHERE id = $1`, [id]);
    await reconcile();
    const receipt = await provider.getTransactionReceipt(mined.hash as string);
    expect(receipt).toMatchObject({ status: 1 });
    expect(await provider.getTransactionCount(key.address, "latest")).toBe(6);
  });
});
