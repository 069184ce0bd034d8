import { randomUUID } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { createProjectFixture, createTestDatabase, type ProjectFixture, type TestDatabase } from "@relay/testing";
import { post, startHarness, type Harness } from "../support/harness";
import { verifySyndicateSignature } from "../support/syndicate-verifier";
import { receiver, until, type Received } from "../support/webhook-receiver";

/**
 * Every delivery carries Syndicate's `Syndicate-Signature` beside the Standard Webhooks headers: a
 * receiver written from Syndicate's documented verification (e2e/support/syndicate-verifier.ts),
 * holding the secret the registration returned, accepts each one and refuses a tampered one.
 * Through the gateway and the webhook worker; events are written to the outbox as the tx-worker
 * writes them.
 */
const GRACE_MS = 60_000;

describe("webhooks a Syndicate receiver verifies unchanged", () => {
  let h: Harness;
  let database: TestDatabase;
  let project: ProjectFixture;

  beforeAll(async () => {
    // The dispatcher claims every project's events: a database of its own.
    database = await createTestDatabase({ migrate: true });
    h = await startHarness("syndicate-webhooks", { webhookRotationGraceMs: GRACE_MS }, { databaseUrl: database.url });
    project = await createProjectFixture(h.db, h.kek, { wallets: 0 });
    await h.startWebhookWorker({ retrySchedule: "200ms" });
  });
  afterAll(async () => {
    await h?.close();
    await database?.drop();
  });

  const emit = async (eventType: "WalletBalanceLow" | "TransactionStatusChange"): Promise<string> => {
    const id = randomUUID();
    const data =
      eventType === "WalletBalanceLow"
        ? { walletAddress: "0x0000000000000000000000000000000000000001", chainId: 31337, balance: "1", threshold: "2" }
        : {
            transactionId: randomUUID(),
            chainId: 31337,
            status: "REVERTED",
            previousStatus: "SUBMITTED",
            hash: `0x${"ab".repeat(32)}`,
            blockNumber: "12",
            from: "0x0000000000000000000000000000000000000002",
            nonce: "3",
            reason: "réverted — 失败 \"quoted\" \\ 🙂",
          };
    const payload = { id, eventType, projectId: project.projectId, createdAt: new Date().toISOString(), data };
    await h.db.$executeRawUnsafe(
      `INSERT INTO event (id, project_id, event_type, payload) VALUES ($1::uuid, $2::uuid, $3::"EventType", $4::jsonb)`,
      id,
      project.projectId,
      eventType,
      JSON.stringify(payload),
    );
    return id;
  };
  const register = async (url: string, eventType: string) => {
    const res = await post(h.baseUrl, `/webhook/project/${project.projectId}/eventCallback`, { callbackURL: url, eventType }, project.apiKey);
    expect(res.status).toBe(200);
    return { id: res.body.id as string, secret: res.body.secret as string };
  };
  const header = (r: Received) => r.headers["syndicate-signature"] as string | undefined;

  it("signs every delivery so that Syndicate's documented check accepts it, with the payload's eventType and data at its top level", async () => {
    const hook = await receiver();
    try {
      const status = await register(hook.url, "TransactionStatusChange");
      const low = await register(hook.url, "WalletBalanceLow");
      const ids = [await emit("TransactionStatusChange"), await emit("WalletBalanceLow"), await emit("TransactionStatusChange")];
      await until(() => hook.received.length >= 3);
      for (const r of hook.received) {
        const body = JSON.parse(r.body) as { id: string; eventType: string; data: unknown };
        const secret = body.eventType === "WalletBalanceLow" ? low.secret : status.secret;
        expect(header(r)).toMatch(/^t=\d{13},s=[0-9a-f]{64}$/);
        expect(verifySyndicateSignature(header(r), r.body, secret)).toBe(true);
        // The Standard Webhooks signature is still there and still verifies.
        expect((new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as { id: string }).id).toBe(body.id);
        expect(body.data).toEqual(expect.any(Object));
        // t is when this attempt was signed, in milliseconds, the same instant as webhook-timestamp's seconds.
        expect(Math.floor(Number(header(r)!.slice(2, 15)) / 1000)).toBe(Number(r.headers["webhook-timestamp"]));
      }
      expect(hook.received.map((r) => (JSON.parse(r.body) as { id: string }).id).sort()).toEqual([...ids].sort());
    } finally {
      await hook.close();
    }
  });

  it("is refused by the same check for a changed body, a changed timestamp, another secret, or a stale delivery", async () => {
    const hook = await receiver();
    try {
      const { secret } = await register(hook.url, "WalletBalanceLow");
      await emit("WalletBalanceLow");
      await until(() => hook.received.length >= 1);
      const r = hook.received[0]!;
      const h0 = header(r)!;
      const t = Number(/^t=(\d+)/.exec(h0)![1]);
      expect(verifySyndicateSignature(h0, r.body, secret)).toBe(true);
      expect(verifySyndicateSignature(h0, r.body.replace('"balance":"1"', '"balance":"2"'), secret)).toBe(false);
      expect(verifySyndicateSignature(h0.replace(`t=${t}`, `t=${t + 1}`), r.body, secret)).toBe(false);
      expect(verifySyndicateSignature(h0, r.body, (await register(hook.url, "WalletBalanceLow")).secret)).toBe(false);
      expect(verifySyndicateSignature(h0, r.body, secret, t + 6 * 60_000)).toBe(false);
      expect(verifySyndicateSignature(undefined, r.body, secret)).toBe(false);
    } finally {
      await hook.close();
    }
  });

  it("during a rotation's grace period carries a signature for each secret: a receiver holding either verifies", async () => {
    const hook = await receiver();
    try {
      const { id, secret: old } = await register(hook.url, "TransactionStatusChange");
      const rotated = await post(h.baseUrl, `/webhook/project/${project.projectId}/eventCallback/${id}/rotateSecret`, {}, project.apiKey);
      expect(rotated.status).toBe(200);
      const current = rotated.body.secret as string;
      await emit("TransactionStatusChange");
      await until(() => hook.received.length >= 1);
      const r = hook.received[0]!;
      expect(header(r)).toMatch(/^t=\d{13},s=[0-9a-f]{64},s=[0-9a-f]{64}$/);
      expect(verifySyndicateSignature(header(r), r.body, current)).toBe(true);
      expect(verifySyndicateSignature(header(r), r.body, old)).toBe(true);
    } finally {
      await hook.close();
    }
  });
});
