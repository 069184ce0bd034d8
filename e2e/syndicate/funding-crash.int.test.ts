import { keccak256, parseEther, toBeHex, Transaction } from "ethers";
import { SyndicateClient, SyndicateEnvironment } from "@syndicateio/syndicate-node";
import { createProjectFundingRepository } from "@relay/db";
import {
  addChain,
  createProcessGroup,
  createProjectFixture,
  minedTransactions,
  setOrderCall,
  startRecorderChain,
  testDatabaseUrl,
  waitForStatus,
  type ProcessGroup,
  type RecorderChain,
} from "@relay/testing";
import { startHarness, type Harness } from "../support/harness";
import { startRpcProxy, type RpcProxy } from "../support/rpc-proxy";

/** As in e2e/transactions/tx-worker-crash: a killed worker's job is taken over after 2 s, not 30. */
const WORKER_ENV = { TX_JOB_LOCK_MS: "2000" };

/**
 * A top-up is sent once even when the tx-worker dies between signing it and broadcasting it: the
 * signed transfer is stored first, and the worker that takes the job over sends those same bytes.
 * The tx-worker runs as a process, SIGKILLed by a JSON-RPC proxy at its first
 * eth_sendRawTransaction (the top-up: the call it is for paused without one).
 */
describe("a tx-worker killed between signing a top-up and broadcasting it", () => {
  let h: Harness;
  let chain: RecorderChain;
  let proxy: RpcProxy;
  let group: ProcessGroup;

  beforeAll(async () => {
    chain = await startRecorderChain({ chainId: 31_831 });
    proxy = await startRpcProxy(chain.anvil.rpcUrl);
    h = await startHarness("funding-crash");
    // The workers reach the chain only through the proxy.
    await addChain(h.db, { ...chain.anvil, rpcUrl: proxy.url }, { lowBalanceThresholdWei: parseEther("0.5") });
    group = createProcessGroup({ databaseUrl: testDatabaseUrl(), queuePrefix: h.prefix, kek: h.kek });
  }, 60_000);
  afterAll(async () => {
    await group?.stopAll();
    await h?.close();
    await proxy?.close();
    await chain?.stop();
  });

  it("sends the stored top-up once after a SIGKILL, and the paused call confirms", async () => {
    const { anvil, recorder } = chain;
    const operator = await createProjectFixture(h.db, h.kek, { wallets: 1 });
    const funding = operator.wallets[0]!.address;
    await recorder.provider.send("anvil_setBalance", [funding, toBeHex(parseEther("10"))]);
    const project = await createProjectFixture(h.db, h.kek, { wallets: 1 }); // 0 ETH
    const wallet = project.wallets[0]!.address;
    await createProjectFundingRepository(h.db).set({ projectId: project.projectId, chainId: BigInt(anvil.chainId), fundingAddress: funding, targetBalanceWei: parseEther("1") });

    const victim = await group.startTxWorker("tx-worker-funding-victim", { env: WORKER_ENV });
    const sprung = proxy.arm("before-broadcast", () => victim.kill("SIGKILL"));
    (SyndicateEnvironment as { Production: string }).Production = h.baseUrl;
    const sdk = new SyndicateClient({ token: project.apiKey });
    const { transactionId } = await sdk.transact.sendTransaction({ projectId: project.projectId, chainId: anvil.chainId, contractAddress: recorder.address, ...setOrderCall(9, wallet) });

    const { rawTransaction } = await sprung;
    expect(Transaction.from(rawTransaction).from).toBe(funding);
    expect(await victim.exited).toEqual({ code: null, signal: "SIGKILL" });
    const caughtHash = keccak256(rawTransaction);
    // At the kill: the top-up signed and stored, still PENDING, and not on chain.
    const topUpRows = async () =>
      (
        await h.db.$queryRawUnsafe<{ status: string; hash: string | null; attempts: number }[]>(
          `SELECT t.status, t.hash, (SELECT count(*)::int FROM transaction_attempt a WHERE a.project_id = t.project_id AND a.transaction_id = t.id) AS attempts
             FROM transaction t WHERE t.kind = 'FUNDING' AND t.funded_project_id = $1::uuid`,
          project.projectId,
        )
      );
    expect(await topUpRows()).toEqual([{ status: "PENDING", hash: null, attempts: 1 }]);
    expect(await recorder.provider.getTransaction(caughtHash)).toBeNull();

    await group.startTxWorker("tx-worker-funding-successor", { env: WORKER_ENV });
    const call = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, transactionId, ["CONFIRMED", "REVERTED", "INVALID", "FAILED"], 45_000);
    expect(call.status).toBe("CONFIRMED");

    // On chain once, with the stored bytes; one attempt, CONFIRMED.
    const transfers = (await minedTransactions(anvil.rpcUrl)).filter((tx) => tx.from === funding.toLowerCase());
    expect(transfers.map((t) => t.hash)).toEqual([caughtHash]);
    expect(await topUpRows()).toEqual([{ status: "CONFIRMED", hash: caughtHash, attempts: 1 }]);
    expect((await sdk.funding.getTransactionsByProjects(project.projectId)).transactions.map((t) => [t.status, t.hash])).toEqual([["CONFIRMED", caughtHash]]);
  }, 90_000);
});
