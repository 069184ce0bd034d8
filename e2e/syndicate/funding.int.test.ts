import { keccak256, parseEther, toBeHex, type JsonRpcProvider } from "ethers";
import { SyndicateClient, SyndicateEnvironment, SyndicateError } from "@syndicateio/syndicate-node";
import { createProjectFundingRepository } from "@relay/db";
import {
  addChain,
  createProjectFixture,
  minedTransactions,
  setOrderCall,
  startRecorderChain,
  waitForStatus,
  type AnvilInstance,
  type DeployedRecorder,
  type ProjectFixture,
  type RecorderChain,
} from "@relay/testing";
import { post, startHarness, type Harness } from "../support/harness";
import { receiver, until } from "../support/webhook-receiver";

const THRESHOLD = parseEther("0.5");
const TARGET = parseEther("1");
const FINAL = ["CONFIRMED", "REVERTED", "INVALID", "FAILED"];

/**
 * Managed gas (docs/funding.md) through the pinned Syndicate SDK, response validation on, against
 * the real gateway, tx-worker, Postgres, Redis and anvil: a project wallet that cannot pay is
 * topped up once from the funding wallet, the PAUSED call resumes by itself, and
 * `funding.getTransactionsByProjects` lists the top-up.
 */
describe("managed gas through the Syndicate SDK", () => {
  let h: Harness;
  let chain: RecorderChain;
  let anvil: AnvilInstance;
  let recorder: DeployedRecorder;
  let rpc: JsonRpcProvider;

  const sdk = (apiKey: string) => {
    // The SDK reads its base URL at call time.
    (SyndicateEnvironment as { Production: string }).Production = h.baseUrl;
    return new SyndicateClient({ token: apiKey });
  };
  /** A project of the operator's holding one funding wallet, and a project with managed gas from it. */
  const managed = async (fundingEth: string) => {
    const operator = await createProjectFixture(h.db, h.kek, { wallets: 1 });
    const funding = operator.wallets[0]!.address;
    await rpc.send("anvil_setBalance", [funding, toBeHex(parseEther(fundingEth))]);
    const project = await createProjectFixture(h.db, h.kek, { wallets: 1 }); // a new key: 0 ETH
    await createProjectFundingRepository(h.db).set({ projectId: project.projectId, chainId: BigInt(anvil.chainId), fundingAddress: funding, targetBalanceWei: TARGET });
    return { operator, funding, project, wallet: project.wallets[0]!.address };
  };
  const send = async (project: ProjectFixture, orderId: number) =>
    (
      await sdk(project.apiKey).transact.sendTransaction({
        projectId: project.projectId,
        chainId: anvil.chainId,
        contractAddress: recorder.address,
        ...setOrderCall(orderId, project.wallets[0]!.address),
      })
    ).transactionId;
  const transfersFrom = async (address: string) => (await minedTransactions(anvil.rpcUrl)).filter((tx) => tx.from === address.toLowerCase());

  beforeAll(async () => {
    chain = await startRecorderChain({ chainId: 31_830 });
    ({ anvil, recorder } = chain);
    rpc = recorder.provider;
    h = await startHarness("funding");
    await addChain(h.db, anvil, { lowBalanceThresholdWei: THRESHOLD });
    await h.startTxWorker();
    await h.startWebhookWorker();
  });
  afterAll(async () => {
    await h?.close();
    await chain?.stop();
  });

  it("tops a paused wallet up once from the funding wallet; the call resumes and confirms, and the SDK lists the top-up CONFIRMED", async () => {
    const { operator, funding, project, wallet } = await managed("10");
    const id = await send(project, 1);

    const call = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id, FINAL, 30_000);
    expect(call.status).toBe("CONFIRMED");
    expect(call.history.map((c) => c.status)).toEqual(["PENDING", "PAUSED", "PENDING", "SUBMITTED", "CONFIRMED"]);
    expect(call.from).toBe(wallet);
    expect((await recorder.contract.getFunction("lastOrder")()).id).toBe(1n);

    // The top-up reached the chain exactly once: one transfer of (target − 0) to the wallet.
    const transfers = await transfersFrom(funding);
    expect(transfers).toHaveLength(1);
    const sent = (await rpc.getTransaction(transfers[0]!.hash))!;
    expect({ to: sent.to, value: sent.value, data: sent.data }).toEqual({ to: wallet, value: TARGET, data: "0x" });
    const receipt = (await rpc.getTransactionReceipt(sent.hash))!;

    const listed = await sdk(project.apiKey).funding.getTransactionsByProjects(project.projectId);
    expect(listed.total).toBe(1);
    const [topUp] = listed.transactions;
    expect(topUp).toMatchObject({
      projectId: project.projectId,
      chainId: anvil.chainId,
      fromAddress: funding,
      toAddress: wallet,
      amount: TARGET.toString(),
      status: "CONFIRMED",
      hash: sent.hash,
      block: receipt.blockNumber,
    });
    expect(keccak256(topUp!.signedTxn)).toBe(sent.hash);
    expect(topUp!.createdAt).toBeInstanceOf(Date);

    // Its events are the operator project's (the funding wallet's), not the funded project's; and
    // our own read of it is the operator's too.
    const events = await h.db.$queryRawUnsafe<{ projectId: string; status: string }[]>(
      `SELECT project_id::text AS "projectId", payload->'data'->>'status' AS status FROM event WHERE subject = $1 ORDER BY seq`,
      topUp!.id,
    );
    expect(events).toEqual(["PENDING", "SUBMITTED", "CONFIRMED"].map((status) => ({ projectId: operator.projectId, status })));
    expect((await fetch(`${h.baseUrl}/transact/project/${project.projectId}/transactions/${topUp!.id}`, { headers: { authorization: `Bearer ${project.apiKey}` } })).status).toBe(404);
    // The top-up's signature is the relay's own in the audit log, on the funding wallet's project.
    const audited = await h.db.auditLog.findMany({ where: { subject: topUp!.id } });
    expect(audited.map((e) => [e.action, e.actorType, e.actorId, e.projectId, e.walletAddress, (e.details as { kind?: string }).kind])).toEqual([
      ["transaction.signed", "relay", "relay", operator.projectId, funding, "FUNDING"],
    ]);

    // The balance checks after the call confirmed see the topped-up wallet: no second top-up.
    await new Promise((r) => setTimeout(r, 1500));
    expect(await transfersFrom(funding)).toHaveLength(1);
    expect((await sdk(project.apiKey).funding.getTransactionsByProjects(project.projectId)).total).toBe(1);
  });

  it("pages, and refuses another project's key (403) and bad page or limit (400 naming it)", async () => {
    const { project } = await managed("10");
    await waitForStatus(h.baseUrl, project.apiKey, project.projectId, await send(project, 2), FINAL, 30_000);
    const other = await createProjectFixture(h.db, h.kek, { wallets: 0 });

    expect((await sdk(project.apiKey).funding.getTransactionsByProjects(project.projectId, { page: 0, limit: 1 })).transactions).toHaveLength(1);
    expect(await sdk(project.apiKey).funding.getTransactionsByProjects(project.projectId, { page: 1, limit: 1 })).toEqual({ transactions: [], total: 1 });
    expect(await sdk(other.apiKey).funding.getTransactionsByProjects(other.projectId)).toEqual({ transactions: [], total: 0 });

    const refusal = (e: unknown) => ({ status: (e as SyndicateError).statusCode, message: ((e as SyndicateError).body as { message?: string })?.message });
    expect(refusal(await sdk(other.apiKey).funding.getTransactionsByProjects(project.projectId).catch((e: unknown) => e))).toEqual({
      status: 403,
      message: expect.stringContaining("does not belong to project"),
    });
    expect(refusal(await sdk(project.apiKey).funding.getTransactionsByProjects(project.projectId, { limit: 0 }).catch((e: unknown) => e))).toEqual({
      status: 400,
      message: expect.stringMatching(/^limit/),
    });
    expect(refusal(await sdk(project.apiKey).funding.getTransactionsByProjects(project.projectId, { limit: 101 }).catch((e: unknown) => e))).toMatchObject({ status: 400 });
    const bad = async (query: string) => {
      const res = await fetch(`${h.baseUrl}/funding/project/${project.projectId}/transactions?${query}`, { headers: { authorization: `Bearer ${project.apiKey}` } });
      return { status: res.status, message: ((await res.json()) as { message: string }).message };
    };
    expect(await bad("page=-1")).toEqual({ status: 400, message: expect.stringMatching(/^page/) });
    expect(await bad("page=1.5")).toEqual({ status: 400, message: expect.stringMatching(/^page/) });
    expect(await bad("page=1&page=2")).toEqual({ status: 400, message: expect.stringMatching(/^page/) });
    expect(await bad("limit=abc")).toEqual({ status: 400, message: expect.stringMatching(/^limit/) });
    expect((await fetch(`${h.baseUrl}/funding/project/${project.projectId}/transactions`)).status).toBe(401);
  });

  it("a dry funding wallet emits WalletBalanceLow for itself; the top-up waits (PENDING) until it is funded, then everything confirms", async () => {
    const { operator, funding, project, wallet } = await managed("0");
    const hook = await receiver();
    try {
      const registered = await post(h.baseUrl, `/webhook/project/${operator.projectId}/eventCallback`, { callbackURL: hook.url, eventType: "WalletBalanceLow" }, operator.apiKey);
      expect(registered.status).toBe(200);
      const id = await send(project, 3);
      await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id, ["PAUSED"]);

      const lowOf = (address: string) =>
        hook.received.map((r) => JSON.parse(r.body) as { eventType: string; projectId: string; data: { walletAddress: string } }).filter((b) => b.data.walletAddress === address);
      await until(() => lowOf(funding).length > 0);
      expect(lowOf(funding)[0]).toMatchObject({ eventType: "WalletBalanceLow", projectId: operator.projectId, data: { walletAddress: funding, balance: "0" } });
      const waiting = await sdk(project.apiKey).funding.getTransactionsByProjects(project.projectId);
      expect(waiting.transactions).toEqual([expect.objectContaining({ status: "PENDING", hash: "", signedTxn: "", block: 0, fromAddress: funding, toAddress: wallet })]);

      await rpc.send("anvil_setBalance", [funding, toBeHex(parseEther("10"))]);
      expect((await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id, FINAL, 30_000)).status).toBe("CONFIRMED");
      expect(await transfersFrom(funding)).toHaveLength(1);
      expect((await sdk(project.apiKey).funding.getTransactionsByProjects(project.projectId)).transactions.map((t) => t.status)).toEqual(["CONFIRMED"]);
      expect(lowOf(funding)).toHaveLength(1);
    } finally {
      await hook.close();
    }
  });
});
