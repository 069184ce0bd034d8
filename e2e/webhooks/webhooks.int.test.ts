import { receiver, until, type Received } from "../support/webhook-receiver";
import { JsonRpcProvider, parseEther, type Contract } from "ethers";
import { Webhook } from "standardwebhooks";
import {
  addChain,
  createProjectFixture,
  createTestDatabase,
  deployRecorder,
  freePort,
  fund,
  startAnvil,
  waitForStatus,
  type AnvilInstance,
  type ProjectFixture,
  type TestDatabase,
} from "@relay/testing";
import { post, startHarness, type Harness } from "../support/harness";
import { createReceiver } from "@relay/example-webhook-receiver";


describe("event callbacks and webhook delivery", () => {
  let h: Harness;
  let anvil: AnvilInstance;
  let recorder: { address: string; contract: Contract; provider: JsonRpcProvider };
  let project: ProjectFixture;
  let other: ProjectFixture;
  let database: TestDatabase;

  const register = (p: ProjectFixture, callbackURL: string, eventType = "TransactionStatusChange") =>
    post(h.baseUrl, `/webhook/project/${p.projectId}/eventCallback`, { callbackURL, eventType }, p.apiKey);
  const list = async (p: ProjectFixture) =>
    (await (await fetch(`${h.baseUrl}/webhook/project/${p.projectId}/eventCallbacks`, { headers: { authorization: `Bearer ${p.apiKey}` } })).json()) as {
      id: string;
      disabled: boolean;
      stats: { responseStatus: number; eventCallbackId: string; createdAt: string; data: unknown }[];
    }[];
  /** A project of its own: no other test's transactions reach its registrations. */
  const newProject = async () => {
    const p = await createProjectFixture(h.db, h.kek);
    await fund(anvil.rpcUrl, [p.wallets[0]!.address]);
    return p;
  };
  const send = async (p: ProjectFixture) => {
    const res = await post(
      h.baseUrl,
      "/transact/sendTransaction",
      { projectId: p.projectId, chainId: anvil.chainId, contractAddress: recorder.address, functionSignature: "spend(uint256 n)", args: { n: 1 } },
      p.apiKey,
    );
    expect(res.status).toBe(200);
    return res.body.transactionId as string;
  };

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 31_401 });
    recorder = await deployRecorder(anvil.rpcUrl);
    // The dispatcher claims every project's events: give it a database of its own.
    database = await createTestDatabase({ migrate: true });
    // No grace period after a secret rotation: the old secret stops at once (the grace period is
    // tested in webhook-secret-rotation.int.test.ts).
    h = await startHarness("webhooks", { webhookRotationGraceMs: 0 }, { databaseUrl: database.url });
    await addChain(h.db, anvil);
    project = await createProjectFixture(h.db, h.kek);
    other = await createProjectFixture(h.db, h.kek);
    await fund(anvil.rpcUrl, [project.wallets[0]!.address, other.wallets[0]!.address]);
    await h.startTxWorker();
    await h.startWebhookWorker();
  });
  afterAll(async () => {
    await h.close();
    recorder.provider.destroy();
    await anvil.stop();
    await database.drop();
  });

  it("delivers PENDING, SUBMITTED, CONFIRMED in order, signed per Standard Webhooks, to every registration of the project for that type and to no other", async () => {
    const mine = await receiver();
    const second = await receiver();
    const otherType = await receiver();
    const theirs = await receiver();
    const registration = await register(project, mine.url);
    expect(registration.status).toBe(200);
    expect(registration.body).toMatchObject({ callbackURL: mine.url, eventType: "TransactionStatusChange", projectId: project.projectId, stats: [] });
    expect(registration.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const secondRegistration = await register(project, second.url);
    const otherTypeRegistration = await register(project, otherType.url, "WalletBalanceLow");
    const theirRegistration = await register(other, theirs.url);
    expect([secondRegistration.status, otherTypeRegistration.status, theirRegistration.status]).toEqual([200, 200, 200]);

    const id = await send(project);
    await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id);
    await until(() => mine.received.length >= 3 && second.received.length >= 3);

    // The second registration: the same events in the same order, signed with its own secret.
    const secondWebhook = new Webhook(secondRegistration.body.secret as string);
    expect(second.received.map((r) => (secondWebhook.verify(r.body, r.headers as Record<string, string>) as { data: { status: string } }).data.status)).toEqual([
      "PENDING",
      "SUBMITTED",
      "CONFIRMED",
    ]);
    // Deliveries are created for every matching registration in the statement that dispatches an
    // event: once these three exist, none can still come for another type or another project.
    const deliveriesTo = (eventCallbackId: string) => h.db.webhookDelivery.count({ where: { eventCallbackId } });
    expect(await deliveriesTo(otherTypeRegistration.body.id as string)).toBe(0);
    expect(await deliveriesTo(theirRegistration.body.id as string)).toBe(0);
    expect(otherType.received).toEqual([]);

    const webhook = new Webhook(registration.body.secret as string);
    const events = mine.received.map((r) => webhook.verify(r.body, r.headers as Record<string, string>) as { id: string; eventType: string; projectId: string; data: { transactionId: string; status: string } });
    expect(events.map((e) => e.data.status)).toEqual(["PENDING", "SUBMITTED", "CONFIRMED"]);
    expect(events.every((e) => e.eventType === "TransactionStatusChange" && e.projectId === project.projectId && e.data.transactionId === id)).toBe(true);
    expect(mine.received.map((r) => r.headers["webhook-id"])).toEqual(events.map((e) => e.id));
    expect(() => new Webhook("whsec_" + Buffer.alloc(32, 1).toString("base64")).verify(mine.received[0]!.body, mine.received[0]!.headers as Record<string, string>)).toThrow();
    expect(theirs.received).toEqual([]);

    const stats = (await list(project)).find((r) => r.id === registration.body.id);
    expect(stats!.stats.map((s) => s.responseStatus)).toEqual([200, 200, 200]);
    await Promise.all([mine.close(), second.close(), otherType.close(), theirs.close()]);
  });

  it("reaches the example receiver (examples/webhook-receiver), which verifies each delivery and sees each event once", async () => {
    const p = await newProject();
    const port = await freePort();
    const registration = await register(p, `http://127.0.0.1:${port}/`);
    expect(registration.status).toBe(200);
    const seen: { id: string; webhookId: string; status: unknown }[] = [];
    const example = createReceiver({
      secret: registration.body.secret as string,
      onEvent: (event, webhookId) => void seen.push({ id: event.id, webhookId, status: event.data.status }),
    });
    await new Promise<void>((r) => example.listen(port, "127.0.0.1", () => r()));
    try {
      const id = await send(p);
      await waitForStatus(h.baseUrl, p.apiKey, p.projectId, id);
      await until(() => seen.length >= 3);
      expect(seen.map((e) => e.status)).toEqual(["PENDING", "SUBMITTED", "CONFIRMED"]);
      expect(seen.every((e) => e.webhookId === e.id)).toBe(true);
      // Every attempt was answered 2xx by the example: its signature check passed on each.
      const [listed] = await list(p);
      expect(listed!.stats.map((s) => s.responseStatus)).toEqual([200, 200, 200]);
    } finally {
      example.closeAllConnections();
      await new Promise((r) => example.close(r));
    }
  });

  it("retries a receiver that answered 500 and records both attempts; a 410 disables the registration", async () => {
    const flaky = await receiver({ answers: [500] });
    const registration = await register(project, flaky.url);
    const id = await send(project);
    await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id);
    await until(async () => {
      const entry = (await list(project)).find((c) => c.id === registration.body.id);
      return (entry?.stats.filter((s) => s.responseStatus === 200).length ?? 0) >= 3;
    });
    const entry = (await list(project)).find((c) => c.id === registration.body.id)!;
    expect(entry.stats.map((s) => s.responseStatus).sort()).toEqual([200, 200, 200, 500]);
    expect(entry.stats.every((s) => s.eventCallbackId === registration.body.id && !Number.isNaN(Date.parse(s.createdAt)))).toBe(true);
    // The retry carries the same webhook-id as the failed attempt.
    const ids = flaky.received.map((r) => r.headers["webhook-id"]);
    expect(new Set(ids).size).toBe(3);
    expect(ids.length).toBe(4);
    await flaky.close();

    const gone = await receiver({ answers: [410, 410, 410] });
    const doomed = await register(project, gone.url);
    await send(project);
    await until(async () => (await list(project)).find((c) => c.id === doomed.body.id)?.disabled === true);
    expect(gone.received.length).toBe(1);
    await gone.close();
  });

  it("does not follow a redirect: the 302 is recorded, the delivery retried and never DELIVERED, the Location gets nothing", async () => {
    const owner = await newProject();
    const elsewhere = await receiver();
    const redirecting = await receiver({ answers: Array.from({ length: 12 }, () => 302), headers: { location: elsewhere.url } });
    try {
      const registration = await register(owner, redirecting.url);
      await send(owner);
      // Three events, four attempts each (the harness's schedule has three retries), then FAILED.
      const deliveries = { eventCallbackId: registration.body.id as string };
      await until(
        async () =>
          (await h.db.webhookDelivery.count({ where: deliveries })) === 3 &&
          (await h.db.webhookDelivery.count({ where: { ...deliveries, status: "PENDING" } })) === 0,
      );

      expect((await h.db.webhookDelivery.findMany({ where: deliveries })).map((d) => [d.status, d.attempts])).toEqual([
        ["FAILED", 4],
        ["FAILED", 4],
        ["FAILED", 4],
      ]);
      const stats = (await list(owner)).find((c) => c.id === registration.body.id)!.stats;
      expect(stats.map((s) => s.responseStatus)).toEqual(Array.from({ length: 12 }, () => 302));
      // Each event was sent four times, to the registered URL only.
      const ids = redirecting.received.map((r) => r.headers["webhook-id"] as string);
      expect(ids).toHaveLength(12);
      expect([...new Set(ids)].map((id) => ids.filter((x) => x === id).length)).toEqual([4, 4, 4]);
      expect(elsewhere.received).toEqual([]);
    } finally {
      await Promise.all([redirecting.close(), elsewhere.close()]);
    }
  });

  it("without a grace period, signs deliveries after a secret rotation with the new secret alone, which the old one no longer verifies", async () => {
    const owner = await newProject();
    const hook = await receiver();
    try {
      const registration = await register(owner, hook.url);
      const oldSecret = registration.body.secret as string;
      const before = await send(owner);
      await waitForStatus(h.baseUrl, owner.apiKey, owner.projectId, before);
      await until(() => hook.received.length >= 3);

      const rotated = await post(h.baseUrl, `/webhook/project/${owner.projectId}/eventCallback/${registration.body.id}/rotateSecret`, {}, owner.apiKey);
      expect(rotated.status).toBe(200);
      const newSecret = rotated.body.secret as string;
      expect(newSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(rotated.body.previousSecretExpiresAt).toBeNull();
      expect(newSecret).not.toBe(oldSecret);

      const after = await send(owner);
      await waitForStatus(h.baseUrl, owner.apiKey, owner.projectId, after);
      await until(() => hook.received.length >= 6);

      const verify = (secret: string, r: Received) => new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as { data: { transactionId: string } };
      const [earlier, later] = [hook.received.slice(0, 3), hook.received.slice(3)];
      expect(earlier.map((r) => verify(oldSecret, r).data.transactionId)).toEqual([before, before, before]);
      expect(later.map((r) => verify(newSecret, r).data.transactionId)).toEqual([after, after, after]);
      for (const r of later) expect(() => verify(oldSecret, r)).toThrow();
    } finally {
      await hook.close();
    }
  });

  it("refuses bad registrations with 400 naming the field, and other projects' keys with 403", async () => {
    const bad = [
      [{ callbackURL: "ftp://example.com/x", eventType: "TransactionStatusChange" }, /callbackURL/],
      [{ callbackURL: "https://user:pw@example.com/x", eventType: "TransactionStatusChange" }, /callbackURL/],
      [{ callbackURL: "not a url", eventType: "TransactionStatusChange" }, /callbackURL/],
      [{ callbackURL: "https://example.com/x", eventType: "Whatever" }, /eventType must be one of/],
      [{ callbackURL: "https://example.com/x" }, /eventType/],
    ] as const;
    for (const [body, pattern] of bad) {
      const res = await post(h.baseUrl, `/webhook/project/${project.projectId}/eventCallback`, body, project.apiKey);
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(pattern);
    }
    const forbidden = await post(h.baseUrl, `/webhook/project/${project.projectId}/eventCallback`, { callbackURL: "https://example.com", eventType: "WalletBalanceLow" }, other.apiKey);
    expect(forbidden.status).toBe(403);
    const anonymous = await post(h.baseUrl, `/webhook/project/${project.projectId}/eventCallback`, { callbackURL: "https://example.com", eventType: "WalletBalanceLow" });
    expect(anonymous.status).toBe(401);
  });

  it("refuses a registration beyond the project's limit of active ones (400 saying what to do), and takes one again after a delete", async () => {
    const p = await createProjectFixture(h.db, h.kek, { wallets: 0 });
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) {
      const res = await register(p, `https://receiver-${i}.example/hook`, i % 2 ? "WalletBalanceLow" : "TransactionStatusChange");
      expect([i, res.status]).toEqual([i, 200]);
      ids.push(res.body.id as string);
    }
    const over = await register(p, "https://one-more.example/hook");
    expect(over.status).toBe(400);
    expect(over.body.message).toMatch(new RegExp(`project ${p.projectId} has 25 active event callbacks, the most allowed: delete one \\(DELETE /webhook/project/${p.projectId}/eventCallback/\\{id\\}\\)`));
    expect(await list(p)).toHaveLength(25);

    const deleted = await fetch(`${h.baseUrl}/webhook/project/${p.projectId}/eventCallback/${ids[0]}`, { method: "DELETE", headers: { authorization: `Bearer ${p.apiKey}` } });
    expect(deleted.status).toBe(200);
    expect((await register(p, "https://one-more.example/hook")).status).toBe(200);
  });

  it("never writes a webhook secret into the logs", async () => {
    const r = await register(project, "https://example.com/hook");
    expect(h.logs.join("")).not.toContain(r.body.secret as string);
  });

  it("fires WalletBalanceLow once when a wallet drops below the chain's threshold, not again while low, and again after a refund and a new drop", async () => {
    const chain2 = await startAnvil({ chainId: 31_402 });
    const recorder2 = await deployRecorder(chain2.rpcUrl);
    try {
      await addChain(h.db, chain2, { lowBalanceThresholdWei: parseEther("50") });
      const owner = await createProjectFixture(h.db, h.kek);
      const wallet = owner.wallets[0]!.address;
      const hook = await receiver();
      const registration = await register(owner, hook.url, "WalletBalanceLow");
      const sendOn = async () => {
        const res = await post(
          h.baseUrl,
          "/transact/sendTransaction",
          { projectId: owner.projectId, chainId: chain2.chainId, contractAddress: recorder2.address, functionSignature: "spend(uint256 n)", args: { n: 1 } },
          owner.apiKey,
        );
        const tx = await waitForStatus(h.baseUrl, owner.apiKey, owner.projectId, res.body.transactionId as string);
        expect(tx.status).toBe("CONFIRMED");
      };
      const settle = () => new Promise((r) => setTimeout(r, 1000));

      await fund(chain2.rpcUrl, [wallet], "100");
      await sendOn(); // well above the threshold
      await fund(chain2.rpcUrl, [wallet], "10");
      await sendOn(); // crosses below: one event
      await until(() => hook.received.length === 1);
      await sendOn(); // still low: nothing new
      await settle();
      expect(hook.received.length).toBe(1);
      await fund(chain2.rpcUrl, [wallet], "100");
      await sendOn(); // recovered
      await fund(chain2.rpcUrl, [wallet], "5");
      await sendOn(); // crosses below again
      await until(() => hook.received.length === 2);

      const webhook = new Webhook(registration.body.secret as string);
      const events = hook.received.map((r) => webhook.verify(r.body, r.headers as Record<string, string>) as { eventType: string; projectId: string; data: Record<string, string> });
      expect(events.map((e) => e.eventType)).toEqual(["WalletBalanceLow", "WalletBalanceLow"]);
      expect(events[0]).toMatchObject({ projectId: owner.projectId, data: { walletAddress: wallet, threshold: parseEther("50").toString() } });
      expect(events[0]!.data.chainId as unknown).toBe(Number(chain2.chainId));
      expect(BigInt(events[0]!.data.balance!)).toBeLessThan(parseEther("10"));
      await hook.close();
    } finally {
      recorder2.provider.destroy();
      await chain2.stop();
    }
  });
});
