import { Contract, JsonRpcProvider, keccak256, Transaction } from "ethers";
import { Syndicate, SyndicateClient, SyndicateEnvironment, SyndicateError } from "@syndicateio/syndicate-node";
import * as serialization from "@syndicateio/syndicate-node/serialization";
import { addChain, createProjectFixture, deployRecorder, fund, startAnvil, waitForStatus, type AnvilInstance, type ProjectFixture } from "@relay/testing";
import { startHarness, type Harness } from "../support/harness";

/**
 * Syndicate's transaction reads through the pinned official SDK, its response validation on,
 * against the real gateway, workers, Postgres, Redis and anvil (docs/syndicate.md).
 */
describe("Syndicate's transaction reads through the official SDK", () => {
  let h: Harness;
  let anvil: AnvilInstance;
  let provider: JsonRpcProvider;
  let recorder: { address: string; contract: Contract; provider: JsonRpcProvider };
  let a: ProjectFixture;
  let b: ProjectFixture;
  let sdk: SyndicateClient;
  let sdkB: SyndicateClient;
  const owner = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
  const SET_ORDER = "function setOrder((uint256 id, address owner, uint8[] flags) order)";
  const ids = { confirmed: "", invalid: "", reverted: "", other: "" };

  const send = async (client: SyndicateClient, project: ProjectFixture, functionSignature: string, args: Record<string, unknown>) =>
    (await client.transact.sendTransaction({ projectId: project.projectId, chainId: anvil.chainId, contractAddress: recorder.address, functionSignature, args })).transactionId;
  const settled = (project: ProjectFixture, id: string) => waitForStatus(h.baseUrl, project.apiKey, project.projectId, id);
  const failure = async (call: Promise<unknown>) => {
    try {
      await call;
    } catch (e) {
      if (e instanceof SyndicateError) return { status: e.statusCode, body: e.body as { message?: string } | undefined };
      throw e;
    }
    throw new Error("expected the call to fail");
  };
  const get = async (path: string, apiKey = a.apiKey) => {
    const res = await fetch(`${h.baseUrl}${path}`, { headers: { authorization: `Bearer ${apiKey}` } });
    return { status: res.status, body: (await res.json()) as { message?: string } };
  };

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 31_018, port: 18_101 });
    recorder = await deployRecorder(anvil.rpcUrl);
    provider = new JsonRpcProvider(anvil.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
    h = await startHarness("syndicate-reads");
    await addChain(h.db, anvil);
    a = await createProjectFixture(h.db, h.kek, { wallets: 1 });
    b = await createProjectFixture(h.db, h.kek, { wallets: 1 });
    await fund(anvil.rpcUrl, [...a.wallets, ...b.wallets].map((w) => w.address));
    await h.startTxWorker();
    // The SDK reads its base URL at call time.
    (SyndicateEnvironment as { Production: string }).Production = h.baseUrl;
    sdk = new SyndicateClient({ token: a.apiKey });
    sdkB = new SyndicateClient({ token: b.apiKey });

    // One that confirms, one simulation refuses (INVALID), one that reverts when mined (REVERTED).
    ids.confirmed = await send(sdk, a, SET_ORDER, { order: { id: "42", owner, flags: [1, 2, 255] } });
    await settled(a, ids.confirmed);
    ids.invalid = await send(sdk, a, "alwaysReverts(uint256 x)", { x: 1 });
    await settled(a, ids.invalid);
    await provider.send("evm_setAutomine", [false]);
    try {
      ids.reverted = await send(sdk, a, "revertsWhenMined(uint256 x)", { x: 9 });
      await waitForStatus(h.baseUrl, a.apiKey, a.projectId, ids.reverted, ["SUBMITTED"]);
      await provider.send("anvil_setStorageAt", [recorder.address, "0x0", `0x${"0".repeat(63)}1`]);
      await provider.send("evm_mine", []);
      await settled(a, ids.reverted);
    } finally {
      await provider.send("anvil_setStorageAt", [recorder.address, "0x0", `0x${"0".repeat(64)}`]);
      await provider.send("evm_setAutomine", [true]);
    }
    ids.other = await send(sdkB, b, SET_ORDER, { order: { id: "7", owner, flags: [] } });
    await settled(b, ids.other);
  });

  afterAll(async () => {
    await h.close();
    provider.destroy();
    recorder.provider.destroy();
    await anvil.stop();
  });

  it("getTransactionRequest: a confirmed request with its calldata, decoded arguments and the attempt the chain mined, byte for byte", async () => {
    const tx = await sdk.wallet.getTransactionRequest(a.projectId, ids.confirmed);
    const attempt = tx.transactionAttempts![0]!;
    const onChain = await provider.getTransaction(attempt.hash);
    const receipt = await provider.getTransactionReceipt(attempt.hash);
    expect(tx).toEqual({
      transactionId: ids.confirmed,
      chainId: anvil.chainId,
      projectId: a.projectId,
      invalid: false,
      contractAddress: recorder.address,
      functionSignature: SET_ORDER,
      data: onChain!.data,
      decodedData: { order: { id: "42", owner, flags: ["1", "2", "255"] } },
      value: "0",
      createdAt: expect.any(Date),
      updatedAt: expect.any(Date),
      transactionAttempts: [
        {
          transactionId: ids.confirmed,
          hash: onChain!.hash,
          chainId: anvil.chainId,
          version: 0,
          status: "CONFIRMED",
          block: receipt!.blockNumber,
          signedTxn: await provider.send("eth_getRawTransactionByHash", [attempt.hash]),
          walletAddress: a.wallets[0]!.address,
          reverted: false,
          nonce: onChain!.nonce,
          createdAt: expect.any(Date),
          updatedAt: expect.any(Date),
        },
      ],
    });
    expect(keccak256(attempt.signedTxn)).toBe(attempt.hash);
    expect(Transaction.from(attempt.signedTxn).from).toBe(a.wallets[0]!.address);
    expect(receipt!.status).toBe(1);
  });

  it("getTransactionRequest: INVALID reads invalid with no attempt; REVERTED reads a CONFIRMED attempt flagged reverted, in its block", async () => {
    const invalid = await sdk.wallet.getTransactionRequest(a.projectId, ids.invalid);
    expect([invalid.invalid, invalid.transactionAttempts, invalid.decodedData]).toEqual([true, [], { x: "1" }]);
    const reverted = await sdk.wallet.getTransactionRequest(a.projectId, ids.reverted);
    const attempt = reverted.transactionAttempts![0]!;
    const receipt = await provider.getTransactionReceipt(attempt.hash);
    expect(receipt!.status).toBe(0);
    expect([reverted.invalid, reverted.transactionAttempts!.length, attempt.status, attempt.reverted, attempt.block]).toEqual([false, 1, "CONFIRMED", true, receipt!.blockNumber]);
  });

  it("getTransactionRequestsByProject: newest first, paged with the total of all pages, narrowed by invalid, found by id, contract or function", async () => {
    const list = (request: Syndicate.wallet.GetRequestsByProjectIdRequest) => sdk.wallet.getTransactionRequestsByProject(a.projectId, request);
    const summary = (r: Syndicate.wallet.TransactionRequestsByProjectResponse) => [r.total, r.transactionRequests.map((t) => t.transactionId)];
    expect(summary(await list({}))).toEqual([3, [ids.reverted, ids.invalid, ids.confirmed]]);
    expect(summary(await list({ page: 0, limit: 2 }))).toEqual([3, [ids.reverted, ids.invalid]]);
    expect(summary(await list({ page: 1, limit: 2 }))).toEqual([3, [ids.confirmed]]);
    expect(summary(await list({ page: 5, limit: 2 }))).toEqual([3, []]);
    expect(summary(await list({ invalid: true }))).toEqual([1, [ids.invalid]]);
    expect(summary(await list({ invalid: false }))).toEqual([2, [ids.reverted, ids.confirmed]]);
    expect(summary(await list({ search: ids.confirmed.toUpperCase() }))).toEqual([1, [ids.confirmed]]);
    expect(summary(await list({ search: "setOrder" }))).toEqual([1, [ids.confirmed]]);
    expect(summary(await list({ search: recorder.address.toLowerCase(), limit: 1 }))).toEqual([3, [ids.reverted]]);
    expect(summary(await list({ search: ids.other }))).toEqual([0, []]);
    // The list carries the same request the single read does.
    expect((await list({ search: ids.confirmed })).transactionRequests[0]).toEqual(await sdk.wallet.getTransactionRequest(a.projectId, ids.confirmed));
  });

  it("getTransactionsByProject: attempts newest first, narrowed by status and reverted, found by hash, wallet or transaction id", async () => {
    const confirmed = (await sdk.wallet.getTransactionRequest(a.projectId, ids.confirmed)).transactionAttempts![0]!;
    const reverted = (await sdk.wallet.getTransactionRequest(a.projectId, ids.reverted)).transactionAttempts![0]!;
    const list = (request: Syndicate.wallet.GetTransactionsByProjectIdRequest) => sdk.wallet.getTransactionsByProject(a.projectId, request);
    const summary = (r: Syndicate.wallet.TransactionsByProjectResponse) => [r.total, r.transactionAttempts.map((t) => t.hash)];
    expect(summary(await list({}))).toEqual([2, [reverted.hash, confirmed.hash]]);
    expect((await list({})).transactionAttempts).toEqual([reverted, confirmed]);
    expect(summary(await list({ limit: 1, page: 1 }))).toEqual([2, [confirmed.hash]]);
    expect(summary(await list({ status: "CONFIRMED" }))).toEqual([2, [reverted.hash, confirmed.hash]]);
    expect(summary(await list({ status: "CONFIRMED", reverted: false }))).toEqual([1, [confirmed.hash]]);
    expect(summary(await list({ reverted: true }))).toEqual([1, [reverted.hash]]);
    expect(summary(await list({ status: ["PENDING", "PROCESSED", "SUBMITTED"] }))).toEqual([0, []]);
    expect(summary(await list({ search: confirmed.hash }))).toEqual([1, [confirmed.hash]]);
    expect(summary(await list({ search: a.wallets[0]!.address.toLowerCase() }))).toEqual([2, [reverted.hash, confirmed.hash]]);
    expect(summary(await list({ search: ids.reverted }))).toEqual([1, [reverted.hash]]);
    expect(summary(await list({ search: ids.other }))).toEqual([0, []]);
  });

  it("getProjectTransactionStats: counts the project's own requests only", async () => {
    expect(await sdk.wallet.getProjectTransactionStats(a.projectId)).toEqual({
      numberOfConfirmedTransactions: 1,
      numberOfSubmittedTransactions: 0,
      numberOfPendingTransactions: 0,
      numberOfFailedTransactions: 2,
    });
    expect(await sdkB.wallet.getProjectTransactionStats(b.projectId)).toEqual({
      numberOfConfirmedTransactions: 1,
      numberOfSubmittedTransactions: 0,
      numberOfPendingTransactions: 0,
      numberOfFailedTransactions: 0,
    });
  });

  it("answers 403 to another project's key and 404 for another project's id", async () => {
    for (const call of [
      sdkB.wallet.getTransactionRequest(a.projectId, ids.confirmed),
      sdkB.wallet.getTransactionRequestsByProject(a.projectId),
      sdkB.wallet.getTransactionsByProject(a.projectId),
      sdkB.wallet.getProjectTransactionStats(a.projectId),
    ]) {
      expect(await failure(call)).toEqual({ status: 403, body: { message: `This API key does not belong to project ${a.projectId}` } });
    }
    expect(await failure(sdk.wallet.getTransactionRequest(a.projectId, ids.other))).toMatchObject({ status: 404 });
    expect(await get(`/wallet/project/${a.projectId}/request/${ids.other}`)).toEqual({ status: 404, body: { message: `No transaction ${ids.other} in project ${a.projectId}` } });
  });

  it("answers 400 naming the parameter for a bad query value", async () => {
    const requests = `/wallet/project/${a.projectId}/requests`;
    const attempts = `/wallet/project/${a.projectId}/transactions`;
    const cases: [string, RegExp][] = [
      [`${requests}?limit=0`, /^limit must be an integer from 1 to 100$/],
      [`${requests}?limit=101`, /^limit must be an integer from 1 to 100$/],
      [`${requests}?limit=ten`, /^limit must be an integer from 1 to 100$/],
      [`${requests}?page=-1`, /^page must be a non-negative integer/],
      [`${requests}?page=1&page=2`, /^page must be a non-negative integer, given once$/],
      [`${requests}?invalid=yes`, /^invalid must be true or false$/],
      [`${requests}?search=${"x".repeat(1025)}`, /^search must be at most 1024 characters$/],
      [`${requests}?sort=asc`, /unknown field\(s\) "sort"/],
      [`${attempts}?status=DONE`, /^status must be one of PENDING, PROCESSED, SUBMITTED, CONFIRMED, PAUSED, ABANDONED/],
      [`${attempts}?status=CONFIRMED&status=DONE`, /status/],
      [`${attempts}?reverted=1`, /^reverted must be true or false$/],
      [`/wallet/project/not-a-uuid/transactionStats`, /^projectId in the path must be a UUID$/],
      [`/wallet/project/${a.projectId}/request/not-a-uuid`, /^transactionId in the path must be a UUID$/],
    ];
    for (const [path, message] of cases) {
      const res = await get(path);
      expect({ path, status: res.status, message: res.body.message }).toEqual({ path, status: 400, message: expect.stringMatching(message) });
    }
    // Through the SDK, too.
    expect(await failure(sdk.wallet.getTransactionRequestsByProject(a.projectId, { limit: 0 }))).toEqual({ status: 400, body: { message: "limit must be an integer from 1 to 100" } });
  });

  it("a fee bump: while broadcast, the replaced attempt is ABANDONED and the newest PENDING; once mined, the replacement is CONFIRMED in its block", async () => {
    // A node that mines only when told to, so the first attempt gets stuck and is replaced.
    const stalled = await startAnvil({ chainId: 31_019, port: 18_102 });
    const stalledRecorder = await deployRecorder(stalled.rpcUrl);
    const rpc = new JsonRpcProvider(stalled.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
    try {
      await rpc.send("evm_setAutomine", [false]);
      await addChain(h.db, stalled, { stuckAfterSeconds: 1 });
      const c = await createProjectFixture(h.db, h.kek, { wallets: 1 });
      await fund(stalled.rpcUrl, c.wallets.map((w) => w.address));
      const sdkC = new SyndicateClient({ token: c.apiKey });
      const id = (
        await sdkC.transact.sendTransaction({ projectId: c.projectId, chainId: stalled.chainId, contractAddress: stalledRecorder.address, functionSignature: SET_ORDER, args: { order: { id: "1", owner, flags: [] } } })
      ).transactionId;
      const deadline = Date.now() + 20_000;
      let request = await sdkC.wallet.getTransactionRequest(c.projectId, id);
      while ((request.transactionAttempts?.length ?? 0) < 2) {
        if (Date.now() > deadline) throw new Error(`never replaced: ${JSON.stringify(request)}`);
        await new Promise((r) => setTimeout(r, 100));
        request = await sdkC.wallet.getTransactionRequest(c.projectId, id);
      }
      // `version` is in Syndicate's OpenAPI document, not in the SDK's type (which passes it through).
      const version = (t: Syndicate.wallet.TransactionAttempt) => (t as Syndicate.wallet.TransactionAttempt & { version: number }).version;
      const attempts = request.transactionAttempts!;
      expect(attempts.map((t) => [t.status, version(t), t.block])).toEqual(attempts.map((_, i) => [i === attempts.length - 1 ? "PENDING" : "ABANDONED", i, 0]));
      expect(new Set(attempts.map((t) => t.nonce)).size).toBe(1);
      // A superseded attempt last changed when its replacement was made.
      expect(attempts[0]!.updatedAt).toEqual(attempts[1]!.createdAt);
      expect(await sdkC.wallet.getProjectTransactionStats(c.projectId)).toMatchObject({ numberOfSubmittedTransactions: 1, numberOfConfirmedTransactions: 0 });
      const pending = await sdkC.wallet.getTransactionsByProject(c.projectId, { status: "PENDING" });
      expect([pending.total, pending.transactionAttempts.map((t) => [t.transactionId, t.status])]).toEqual([1, [[id, "PENDING"]]]);
      // The SDK's type for `status` lists its four values only; it sends any other as given.
      const abandoned = await sdkC.wallet.getTransactionsByProject(c.projectId, { status: "ABANDONED" as Syndicate.wallet.TransactionStatus });
      expect(abandoned.total).toBeGreaterThanOrEqual(1);
      expect(abandoned.transactionAttempts.every((t) => t.status === ("ABANDONED" as string) && t.transactionId === id)).toBe(true);

      await rpc.send("evm_mine", []);
      await waitForStatus(h.baseUrl, c.apiKey, c.projectId, id);
      const settledRequest = await sdkC.wallet.getTransactionRequest(c.projectId, id);
      const mined = settledRequest.transactionAttempts!.filter((t) => t.status === "CONFIRMED");
      expect(mined).toHaveLength(1);
      const receipt = await rpc.getTransactionReceipt(mined[0]!.hash);
      expect([receipt?.status, mined[0]!.block]).toEqual([1, receipt!.blockNumber]);
      expect(settledRequest.transactionAttempts!.filter((t) => t !== mined[0]).map((t) => [t.status, t.block])).toEqual(
        settledRequest.transactionAttempts!.slice(0, -1).map(() => ["ABANDONED", 0]),
      );
      expect(await sdkC.wallet.getProjectTransactionStats(c.projectId)).toMatchObject({ numberOfSubmittedTransactions: 0, numberOfConfirmedTransactions: 1 });
    } finally {
      rpc.destroy();
      stalledRecorder.provider.destroy();
      await stalled.stop();
    }
  });

  it("every attempt status the relay answers passes the pinned SDK's response validation, PAUSED and ABANDONED (outside its enum) included", async () => {
    for (const status of ["PENDING", "PROCESSED", "SUBMITTED", "CONFIRMED", "PAUSED", "ABANDONED"]) {
      const body = { transactionAttempts: [{ transactionId: ids.confirmed, hash: "0x01", chainId: 1, version: 0, status, block: 0, signedTxn: "0x02", walletAddress: owner, reverted: false, nonce: 0, createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() }], total: 1 };
      // The options the SDK's own getTransactionsByProject parses with.
      const parsed = await serialization.wallet.TransactionsByProjectResponse.parse(body, {
        unrecognizedObjectKeys: "passthrough",
        allowUnrecognizedUnionMembers: true,
        allowUnrecognizedEnumValues: true,
        breadcrumbsPrefix: ["response"],
      });
      expect({ status, ok: parsed.ok }).toEqual({ status, ok: true });
    }
  });
});
