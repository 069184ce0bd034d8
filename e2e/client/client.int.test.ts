import { randomUUID } from "node:crypto";
import { JsonRpcProvider, verifyMessage, verifyTypedData } from "ethers";
import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  RelayClient,
  RelayError,
  UnauthorizedError,
  UnprocessableError,
  UnsupportedMediaTypeError,
  verifyWebhook,
  WebhookVerificationError,
  type TransactionRecord,
} from "@relay/client";
import {
  addChain,
  createProjectFixture,
  createTestDatabase,
  deployRecorder,
  fund,
  startAnvil,
  type AnvilInstance,
  type DeployedRecorder,
  type ProjectFixture,
  type TestDatabase,
} from "@relay/testing";
import { sendAndFollow } from "@relay/example-send-and-follow";
import { startHarness, type Harness } from "../support/harness";
import { receiver, until } from "../support/webhook-receiver";

/**
 * @relay/client against the real gateway and workers: every route through the client with its
 * real effect, every typed error provoked for real, and the webhook verifier on real deliveries.
 * anvil mines only when told (evm_mine), so a transaction stays SUBMITTED long enough to speed up.
 */
describe("@relay/client against the relay", () => {
  let h: Harness;
  let anvil: AnvilInstance;
  let rpc: JsonRpcProvider;
  let recorder: DeployedRecorder;
  let database: TestDatabase;
  let project: ProjectFixture;
  let other: ProjectFixture;
  let relay: RelayClient;

  const spend = (n: number) => ({ chainId: anvil.chainId, contractAddress: recorder.address, functionSignature: "spend(uint256 n)", args: { n } });
  const signer = () => project.wallets[0]!.address;
  /** Polls through the client until `check` holds for the record. */
  const readUntil = async (id: string, check: (t: TransactionRecord) => boolean): Promise<TransactionRecord> => {
    let last: TransactionRecord | undefined;
    await until(async () => check((last = await relay.getTransaction(id))), 30_000);
    return last!;
  };

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 18_931, port: 18_931 });
    recorder = await deployRecorder(anvil.rpcUrl);
    rpc = new JsonRpcProvider(anvil.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
    // The webhook dispatcher claims every project's events: a database of this test's own.
    database = await createTestDatabase({ migrate: true });
    h = await startHarness("client", {}, { databaseUrl: database.url });
    await addChain(h.db, anvil, { stuckAfterSeconds: 600 });
    project = await createProjectFixture(h.db, h.kek);
    other = await createProjectFixture(h.db, h.kek);
    await fund(anvil.rpcUrl, [project.wallets[0]!.address]);
    await rpc.send("evm_setAutomine", [false]);
    await h.startTxWorker();
    await h.startWebhookWorker();
    relay = new RelayClient({ baseUrl: h.baseUrl, apiKey: project.apiKey, projectId: project.projectId });
  });
  afterAll(async () => {
    await h?.close();
    recorder?.provider.destroy();
    rpc?.destroy();
    await anvil?.stop();
    await database?.drop();
  });

  it("sends a call, speeds it up, follows it to CONFIRMED, and verifies each webhook delivery of it; every transaction read agrees", async () => {
    const hooks = await receiver();
    try {
      const callback = await relay.createEventCallback({ callbackURL: hooks.url, eventType: "TransactionStatusChange" });
      expect(callback.secret).toMatch(/^whsec_/);

      const { transactionId } = await relay.sendTransaction(spend(2));
      const submitted = await readUntil(transactionId, (t) => t.status === "SUBMITTED");
      const speedUp = await relay.speedUpTransaction(transactionId);
      expect(speedUp).toEqual({ transactionId, status: "SUBMITTED", speedUp: "requested", capped: false });
      // Stored a moment before it is broadcast: the transaction's hash moves to it once sent.
      await readUntil(transactionId, (t) => t.attempts.length === 2 && t.hash === t.attempts[1]!.hash);
      await rpc.send("evm_mine", []);
      const final = await relay.waitForTransaction(transactionId, { intervalMs: 100, timeoutMs: 30_000 });
      expect(final.status).toBe("CONFIRMED");
      expect(final.hash).toBe(final.attempts[1]!.hash);
      expect(final.hash).not.toBe(submitted.attempts[0]!.hash);
      expect(BigInt((await rpc.getTransactionReceipt(final.hash!))!.blockNumber)).toBe(BigInt(final.blockNumber!));

      // The webhook verifier on the real deliveries: typed events, chainId a number. The
      // replacement is a change SUBMITTED -> SUBMITTED of its own.
      await until(() => hooks.received.length >= 4, 20_000);
      const events = hooks.received.map((r) => verifyWebhook(callback.secret, r.body, r.headers));
      expect(events.map((e) => e.eventType === "TransactionStatusChange" && e.data.status)).toEqual(["PENDING", "SUBMITTED", "SUBMITTED", "CONFIRMED"]);
      expect(events.every((e) => e.projectId === project.projectId && e.data.transactionId === transactionId && e.data.chainId === anvil.chainId)).toBe(true);
      const first = hooks.received[0]!;
      expect(() => verifyWebhook(callback.secret, first.body.replace("PENDING", "CONFIRMED"), first.headers)).toThrow(WebhookVerificationError);
      expect(() => verifyWebhook("whsec_" + Buffer.alloc(32, 9).toString("base64"), first.body, first.headers)).toThrow(WebhookVerificationError);

      // The transaction's events and their deliveries; one of them sent again; the project's activity.
      const sentEvents = await relay.getTransactionEvents(transactionId);
      expect(sentEvents.events.map((e) => [e.eventId, (e.payload as { data: { status: string } }).data.status])).toEqual(events.map((e) => [e.id, e.eventType === "TransactionStatusChange" && e.data.status]));
      for (const e of sentEvents.events) expect(e.deliveries).toEqual([expect.objectContaining({ eventCallbackId: callback.id, callbackURL: hooks.url, status: "DELIVERED", lastResponseStatus: 200 })]);
      const again = await relay.redeliverEvent(callback.id, sentEvents.events[0]!.deliveries[0]!.deliveryId);
      expect(again).toEqual({ deliveryId: sentEvents.events[0]!.deliveries[0]!.deliveryId, eventCallbackId: callback.id, eventId: sentEvents.events[0]!.eventId, status: "PENDING", previousStatus: "DELIVERED" });
      await until(() => hooks.received.length >= 5, 20_000);
      expect(verifyWebhook(callback.secret, hooks.received[4]!.body, hooks.received[4]!.headers).id).toBe(again.eventId);
      expect((await relay.listProjects()).projects.map((p) => p.projectId)).toEqual([project.projectId]);
      const activity = await relay.getActivity({ window: "hour" });
      expect(activity.buckets).toHaveLength(60);
      expect(activity.buckets.reduce((n, b) => n + b.confirmed, 0)).toBeGreaterThanOrEqual(1);

      // Our list and the Syndicate-compatible reads.
      const list = await relay.listTransactions({ status: ["CONFIRMED"], chainId: anvil.chainId });
      expect(list.transactions.map((t) => t.transactionId)).toContain(transactionId);
      const request = await relay.getRequest(transactionId);
      expect(request).toMatchObject({ transactionId, chainId: anvil.chainId, invalid: false, decodedData: { n: "2" } });
      expect(request.transactionAttempts).toHaveLength(2);
      expect((await relay.listRequests({ search: transactionId })).transactionRequests.map((r) => r.transactionId)).toEqual([transactionId]);
      const attempts = await relay.listAttempts({ search: transactionId, status: ["CONFIRMED", "ABANDONED"] });
      expect(attempts.total).toBe(2);
      expect(attempts.transactionAttempts.map((a) => a.status).sort()).toEqual(["ABANDONED", "CONFIRMED"]);
      expect((await relay.getTransactionStats()).numberOfConfirmedTransactions).toBeGreaterThanOrEqual(1);
      // A read through the relay's RPC: the call landed.
      expect(await relay.call({ chainId: anvil.chainId, contractAddress: recorder.address, functionSignature: "totalSpent() view returns (uint256)" })).toBe("2");

      // The callback's stats, a rotated secret that signs the next deliveries, deletion.
      const listed = (await relay.listEventCallbacks()).find((c) => c.id === callback.id)!;
      // Four deliveries and the redelivery.
      expect(listed.stats.map((s) => s.responseStatus)).toEqual([200, 200, 200, 200, 200]);
      const rotated = await relay.rotateEventCallbackSecret(callback.id);
      expect(rotated.secret).not.toBe(callback.secret);
      hooks.received.length = 0;
      const second = await relay.sendTransaction(spend(1));
      await until(() => hooks.received.length >= 1, 20_000);
      expect(verifyWebhook(rotated.secret, hooks.received[0]!.body, hooks.received[0]!.headers)).toMatchObject({ data: { transactionId: second.transactionId, status: "PENDING" } });
      await expect(relay.deleteEventCallback(callback.id)).resolves.toEqual({ id: callback.id, deleted: true });
      expect((await relay.listEventCallbacks()).map((c) => c.id)).not.toContain(callback.id);
      await readUntil(second.transactionId, (t) => t.status === "SUBMITTED");
      await rpc.send("evm_mine", []);
      expect((await relay.waitForTransaction(second.transactionId, { intervalMs: 100, timeoutMs: 30_000 })).status).toBe("CONFIRMED");
    } finally {
      await hooks.close();
    }
  });

  it("runs the example (examples/send-and-follow): the call followed to CONFIRMED by reading it and by its verified webhooks", async () => {
    await rpc.send("evm_setAutomine", [true]);
    try {
      const port = 18_932;
      const { transaction, events } = await sendAndFollow({
        relay,
        ...spend(3),
        webhook: { host: "127.0.0.1", port, publicUrl: `http://127.0.0.1:${port}/` },
        timeoutMs: 30_000,
      });
      expect(transaction.status).toBe("CONFIRMED");
      expect(events.map((e) => e.eventType === "TransactionStatusChange" && e.data.status)).toEqual(["PENDING", "SUBMITTED", "CONFIRMED"]);
      // The example removed its callback again.
      expect((await relay.listEventCallbacks()).map((c) => c.callbackURL)).not.toContain(`http://127.0.0.1:${port}/`);
    } finally {
      await rpc.send("evm_setAutomine", [false]);
    }
  });

  it("cancels a transaction before it is sent", async () => {
    await h.stopTxWorker();
    try {
      const { transactionId } = await relay.sendTransaction(spend(1));
      await expect(relay.cancelTransaction(transactionId)).resolves.toEqual({ transactionId, status: "CANCELLED", cancel: "done" });
      expect((await relay.getTransaction(transactionId)).status).toBe("CANCELLED");
      // A final transaction is not sped up: 409, typed.
      const error = await relay.speedUpTransaction(transactionId).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConflictError);
      expect((error as ConflictError).message).toContain("CANCELLED");
    } finally {
      await h.startTxWorker();
    }
  });

  it("signs a message and typed data, and reads both signatures back by every route", async () => {
    const signed = await relay.personalSign({ signerAddress: signer(), message: "hello from the client" });
    expect(verifyMessage("hello from the client", signed.signature)).toBe(signer());
    // The generated signatureId makes the call repeatable: the same id answers the stored signature.
    await expect(relay.personalSign({ signerAddress: signer(), message: "hello from the client", signatureId: signed.signatureId })).resolves.toEqual(signed);
    expect(await relay.getSignature(signed.signatureId)).toMatchObject({ signatureId: signed.signatureId, status: "SIGNED", signature: signed.signature });
    expect(await relay.getPersonalSignature(signed.signatureId)).toMatchObject({ walletAddress: signer(), message: "hello from the client", signature: signed.signature });
    expect((await relay.listPersonalSignatures({ limit: 100 })).map((s) => s.signatureId)).toContain(signed.signatureId);

    const domain = { name: "Client Test", version: "1", chainId: anvil.chainId, verifyingContract: recorder.address };
    const types = { Mail: [{ name: "to", type: "address" }, { name: "contents", type: "string" }] };
    const message = { to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", contents: "hi" };
    const typed = await relay.signTypedData({ signerAddress: signer(), domain, types, primaryType: "Mail", message });
    expect(verifyTypedData(domain, types, message, typed.signature)).toBe(signer());
    expect(await relay.getTypedDataSignature(typed.signatureId)).toMatchObject({ primaryType: "Mail", signature: typed.signature, walletAddress: signer() });
    expect((await relay.listTypedDataSignatures()).map((s) => s.signatureId)).toContain(typed.signatureId);
  });

  it("creates, lists, deactivates, reactivates and retires a wallet; lists the (empty) funding top-ups; reads the (absent) policy", async () => {
    const created = await relay.createWallet({ chainId: anvil.chainId });
    expect(created.projectId).toBe(project.projectId);
    const listed = await relay.listWallets({ withData: true });
    expect(listed.map((w) => w.walletAddress)).toContain(created.walletAddress);
    expect((await relay.toggleWalletIsActive(created.walletAddress)).isActive).toBe(false);
    expect((await relay.toggleWalletIsActive(created.walletAddress)).isActive).toBe(true);
    await expect(relay.retireWallet(created.walletAddress)).resolves.toMatchObject({ walletAddress: created.walletAddress });
    expect((await relay.listWallets()).find((w) => w.walletAddress === created.walletAddress)!.retiredAt).not.toBeNull();
    await expect(relay.listFundingTransactions({ page: 0, limit: 10 })).resolves.toEqual({ transactions: [], total: 0 });
    await expect(relay.getPolicy()).resolves.toEqual({ projectId: project.projectId, policy: null, updatedAt: null });
  });

  it("answers every refusal as its typed error, with the relay's status and message", async () => {
    const caught = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as RelayError);

    const bad = await caught(relay.sendTransaction({ ...spend(1), contractAddress: "0x123" }));
    expect(bad).toBeInstanceOf(BadRequestError);
    expect(bad).toMatchObject({ status: 400, kind: "bad_request" });
    expect(bad!.message).toContain("contractAddress");

    const unauthorized = await caught(new RelayClient({ baseUrl: h.baseUrl, apiKey: "not-a-key", projectId: project.projectId }).getTransactionStats());
    expect(unauthorized).toBeInstanceOf(UnauthorizedError);
    expect(unauthorized!.status).toBe(401);

    const forbidden = await caught(relay.listWallets({}, { projectId: other.projectId }));
    expect(forbidden).toBeInstanceOf(ForbiddenError);
    expect(forbidden!.message).toContain(other.projectId);

    const missing = randomUUID();
    const notFound = await caught(relay.getTransaction(missing));
    expect(notFound).toBeInstanceOf(NotFoundError);
    expect(notFound!.status).toBe(404);

    const requestId = randomUUID();
    await relay.sendTransaction({ ...spend(1), requestId });
    const conflict = await caught(relay.sendTransaction({ ...spend(1), requestId }));
    expect(conflict).toBeInstanceOf(ConflictError);
    expect((conflict as ConflictError).transactionId).toBe(requestId);

    const unprocessable = await caught(relay.sendTransaction({ ...spend(1), requestId: "not-a-uuid" }));
    expect(unprocessable).toBeInstanceOf(UnprocessableError);
    expect(unprocessable!.message).toContain("requestId");

    // The harness's body limit is 64 KiB.
    const tooLarge = await caught(relay.personalSign({ signerAddress: signer(), message: "x".repeat(70_000) }));
    expect(tooLarge).toBeInstanceOf(PayloadTooLargeError);
    expect(tooLarge).toMatchObject({ status: 413, kind: "payload_too_large" });

    // What a proxy that re-labels the body's charset between the client and the relay causes.
    const relabelling = (async (input: URL | string | Request, init?: RequestInit) =>
      fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), "content-type": "application/json; charset=latin1" } })) as typeof fetch;
    const relabelled = new RelayClient({ baseUrl: h.baseUrl, apiKey: project.apiKey, projectId: project.projectId, fetch: relabelling });
    const unsupported = await caught(relabelled.personalSign({ signerAddress: signer(), message: "hello" }));
    expect(unsupported).toBeInstanceOf(UnsupportedMediaTypeError);
    expect(unsupported).toMatchObject({ status: 415, kind: "unsupported_media_type" });
    expect(unsupported!.message).toContain("UTF-8");
  });

  it("after a lost answer, sends sendTransaction again with the same requestId and returns it (one transaction); never repeats a wallet creation", async () => {
    /** The real fetch, whose first answer to `path` is lost: the request reached the relay, the answer never came back. */
    const losingFirstAnswer = (path: string) => {
      let lost = false;
      const sent: string[] = [];
      const lossy = (async (input: URL | string | Request, init?: RequestInit) => {
        const response = await fetch(input, init);
        sent.push(String(input));
        if (!lost && String(input).endsWith(path)) {
          lost = true;
          await response.text();
          throw new TypeError("fetch failed: connection reset");
        }
        return response;
      }) as typeof fetch;
      return { sent, client: new RelayClient({ baseUrl: h.baseUrl, apiKey: project.apiKey, projectId: project.projectId, fetch: lossy, retry: { baseDelayMs: 10 } }) };
    };

    const send = losingFirstAnswer("/transact/sendTransaction");
    const { transactionId } = await send.client.sendTransaction(spend(1));
    expect(send.sent).toHaveLength(2);
    expect((await relay.getTransaction(transactionId)).transactionId).toBe(transactionId);
    expect(await h.db.transaction.count({ where: { projectId: project.projectId, id: transactionId } })).toBe(1);

    const before = (await relay.listWallets()).length;
    const create = losingFirstAnswer("/wallet/create");
    await expect(create.client.createWallet({ chainId: anvil.chainId })).rejects.toMatchObject({ kind: "network", status: 0 });
    expect(create.sent).toHaveLength(1);
    expect((await relay.listWallets()).length).toBe(before + 1);
  });

  it("gets a 429 from a low rate limit, waits what Retry-After says before each retry, and ends with a RateLimitedError", async () => {
    const limited = await startHarness("client-rate", { rateLimitPerMinute: 2 }, { databaseUrl: database.url });
    try {
      const p = await createProjectFixture(limited.db, limited.kek);
      const waits: number[] = [];
      const client = new RelayClient({
        baseUrl: limited.baseUrl,
        apiKey: p.apiKey,
        projectId: p.projectId,
        retry: { maxAttempts: 3, maxDelayMs: 120_000, maxElapsedMs: 600_000 },
        // Recorded, not slept: the window is a minute long.
        sleep: async (ms) => void waits.push(ms),
      });
      await client.getTransactionStats();
      await client.getTransactionStats();
      const error = await client.getTransactionStats().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RateLimitedError);
      const retryAfterMs = (error as RateLimitedError).retryAfterMs!;
      expect(retryAfterMs).toBeGreaterThan(0);
      expect(retryAfterMs).toBeLessThanOrEqual(60_000);
      expect(waits).toHaveLength(2);
      for (const wait of waits) expect(Math.abs(wait - retryAfterMs)).toBeLessThanOrEqual(1000);
    } finally {
      await limited.close();
    }
  });
});
