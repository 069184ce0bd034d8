import { randomUUID } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { createProjectFixture, createTestDatabase, readRedisValues, type ProjectFixture, type TestDatabase } from "@relay/testing";
import { post, startHarness, type Harness } from "../support/harness";
import { receiver, until, type Received } from "../support/webhook-receiver";

/**
 * docs/webhooks.md, "Rotating a secret": after POST …/rotateSecret, deliveries carry a signature
 * with the new secret and, until the grace period ends, one with the secret it replaced, so a
 * receiver that has not switched yet keeps verifying; after it, only the new one. Through the
 * gateway and the webhook worker, with a grace period of a few seconds; events are written to
 * the outbox directly (no chain needed).
 */
const GRACE_MS = 6000;

describe("webhook secret rotation with a grace period", () => {
  let h: Harness;
  let database: TestDatabase;
  let project: ProjectFixture;

  beforeAll(async () => {
    // The dispatcher claims every project's events: a database of its own.
    database = await createTestDatabase({ migrate: true });
    h = await startHarness("secret-rotation", { webhookRotationGraceMs: GRACE_MS }, { databaseUrl: database.url });
    project = await createProjectFixture(h.db, h.kek, { wallets: 0 });
    await h.startWebhookWorker({ retrySchedule: "200ms" });
  });
  afterAll(async () => {
    await h?.close();
    await database?.drop();
  });

  /** One WalletBalanceLow in the outbox, as the tx-worker writes it; its id. */
  const emit = async (): Promise<string> => {
    const id = randomUUID();
    const payload = {
      id,
      eventType: "WalletBalanceLow",
      projectId: project.projectId,
      createdAt: new Date().toISOString(),
      data: { walletAddress: "0x0000000000000000000000000000000000000001", chainId: 31337, balance: "1", threshold: "2" },
    };
    await h.db.$executeRawUnsafe(
      `INSERT INTO event (id, project_id, event_type, payload) VALUES ($1::uuid, $2::uuid, 'WalletBalanceLow', $3::jsonb)`,
      id,
      project.projectId,
      JSON.stringify(payload),
    );
    return id;
  };
  const rotate = (id: string) => post(h.baseUrl, `/webhook/project/${project.projectId}/eventCallback/${id}/rotateSecret`, {}, project.apiKey);
  /** What a receiver holding only `secret` makes of a request: the event id it verified, or the refusal. */
  const verifiedBy = (secret: string) => (r: Received) => {
    try {
      return (new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as { id: string }).id;
    } catch (e) {
      return `refused: ${(e as Error).message}`;
    }
  };
  const signatures = (r: Received) => String(r.headers["webhook-signature"]).split(" ").length;

  it("signs with the old secret too until the grace period ends (a second rotation replaces it), then with the new one alone", async () => {
    // The second request is answered 500: that event's retry is signed after the rotation too.
    const hook = await receiver({ answers: [200, 500] });
    try {
      const registered = await post(h.baseUrl, `/webhook/project/${project.projectId}/eventCallback`, { callbackURL: hook.url, eventType: "WalletBalanceLow" }, project.apiKey);
      expect(registered.status).toBe(200);
      // The contract's registration answer is unchanged by rotation support.
      expect(Object.keys(registered.body).sort()).toEqual(["callbackURL", "eventType", "id", "projectId", "secret", "stats"]);
      const callbackId = registered.body.id as string;
      const s0 = registered.body.secret as string;

      const e1 = await emit();
      await until(() => hook.received.length >= 1);
      expect(hook.received.map(verifiedBy(s0))).toEqual([e1]);
      expect(signatures(hook.received[0]!)).toBe(1);

      // Rotation 1: s0 → s1, s0 still signed with for GRACE_MS.
      const before = Date.now();
      const first = await rotate(callbackId);
      const after = Date.now();
      expect(first.status).toBe(200);
      expect(first.body).toEqual({
        callbackURL: hook.url,
        eventType: "WalletBalanceLow",
        id: callbackId,
        projectId: project.projectId,
        disabled: false,
        disabledReason: null,
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
        previousSecretExpiresAt: expect.any(String),
      });
      const s1 = first.body.secret as string;
      const firstExpiry = Date.parse(first.body.previousSecretExpiresAt as string);
      expect(firstExpiry).toBeGreaterThanOrEqual(before + GRACE_MS);
      expect(firstExpiry).toBeLessThanOrEqual(after + GRACE_MS);

      // Answered 500, then retried: both attempts verify with the old secret and with the new one.
      const e2 = await emit();
      await until(() => hook.received.length >= 3);
      const afterFirst = hook.received.slice(1, 3);
      expect(afterFirst.map(verifiedBy(s0))).toEqual([e2, e2]);
      expect(afterFirst.map(verifiedBy(s1))).toEqual([e2, e2]);
      expect(afterFirst.map(signatures)).toEqual([2, 2]);

      // Rotation 2 within the grace period: s1 becomes the previous secret, s0 is no longer signed with.
      const second = await rotate(callbackId);
      expect(second.status).toBe(200);
      const s2 = second.body.secret as string;
      const secondExpiry = Date.parse(second.body.previousSecretExpiresAt as string);
      expect(secondExpiry).toBeGreaterThan(firstExpiry);
      const e3 = await emit();
      await until(() => hook.received.length >= 4);
      const afterSecond = hook.received[3]!;
      expect([verifiedBy(s2)(afterSecond), verifiedBy(s1)(afterSecond), verifiedBy(s0)(afterSecond)]).toEqual([e3, e3, "refused: No matching signature found"]);
      expect(signatures(afterSecond)).toBe(2);

      // After the grace period: the new secret alone.
      await new Promise((r) => setTimeout(r, Math.max(0, secondExpiry - Date.now() + 100)));
      const e4 = await emit();
      await until(() => hook.received.length >= 5);
      const afterGrace = hook.received[4]!;
      expect([verifiedBy(s2)(afterGrace), verifiedBy(s1)(afterGrace), verifiedBy(s0)(afterGrace)]).toEqual([
        e4,
        "refused: No matching signature found",
        "refused: No matching signature found",
      ]);
      expect(signatures(afterGrace)).toBe(1);

      // None of the secrets, current or retired, reached a log line or Redis.
      const secrets = [s0, s1, s2].flatMap((s) => [s, s.slice("whsec_".length)]);
      const logs = h.logs.join("");
      expect(logs).toMatch(/webhook delivered/);
      expect(secrets.filter((s) => logs.includes(s))).toEqual([]);
      const redis = [...(await readRedisValues(h.redis, h.prefix)).values()].join("\n");
      expect(redis.length).toBeGreaterThan(0);
      expect(secrets.filter((s) => redis.includes(s))).toEqual([]);
    } finally {
      await hook.close();
    }
  });
});
