import { randomBytes, randomUUID } from "node:crypto";
import { createDatabase, createEventCallbackRepository, createPool, createWebhookSecretRepository } from "@relay/db";
import { createTestDatabase, createProjectFixture, testKek } from "@relay/testing";
import { openPreviousWebhookSecret, openWebhookSecret, sealPreviousWebhookSecret, sealWebhookSecret } from "@relay/webhooks";
import { createCliHarness } from "../cli-harness";

describe("relay webhooks reseal", () => {
  it("seals every registration's secret, and a retired one still in its grace period, under the active key, so the old key can be retired; secrets it cannot open are named", async () => {
    // A database of its own: reseal walks every registration.
    const own = await createTestDatabase({ migrate: true });
    const pool = createPool({ url: own.url, poolSize: 2 });
    const db = createDatabase({ pool });
    try {
      const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
      const before = { activeKeyId: "k1", keys: new Map([["k1", oldKey]]) };
      const project = await createProjectFixture(db, testKek(), { wallets: 0 });
      const callbacks = createEventCallbackRepository({ sql: pool, db });
      const register = () =>
        callbacks.create({
          projectId: project.projectId,
          eventType: "TransactionStatusChange",
          callbackUrl: `https://example.com/${randomUUID()}`,
          sealSecret: (id) => sealWebhookSecret(before, id, `whsec_${id}`),
        });
      const plain = await register();
      const rotated = await register();
      const until = new Date(Date.now() + 3600_000);
      await callbacks.rotateSecret(rotated.id, () => ({
        encryptedSecret: sealWebhookSecret(before, rotated.id, "whsec_new"),
        previous: { encryptedSecret: sealPreviousWebhookSecret(before, rotated.id, "whsec_old", until), expiresAt: until },
      }));

      const rotating = createCliHarness(db, { webhookKeyring: { activeKeyId: "k2", keys: new Map([["k1", oldKey], ["k2", newKey]]) } });
      expect(await rotating.json("webhooks", "reseal")).toEqual({ activeKeyId: "k2", resealed: 2, alreadyCurrent: 0 });
      expect(await rotating.json("webhooks", "reseal")).toEqual({ activeKeyId: "k2", resealed: 0, alreadyCurrent: 2 });

      // The old key gone from the keyring: every secret still opens, the retired one too.
      const retired = { activeKeyId: "k2", keys: new Map([["k2", newKey]]) };
      const rows = new Map((await createWebhookSecretRepository(db).list({ limit: 10 })).map((r) => [r.id, r]));
      expect(openWebhookSecret(retired, rows.get(plain.id)!)).toBe(`whsec_${plain.id}`);
      expect(openWebhookSecret(retired, rows.get(rotated.id)!)).toBe("whsec_new");
      expect(openPreviousWebhookSecret(retired, rows.get(rotated.id)!, new Date())).toBe("whsec_old");

      // A new key under the old key's id: named, left as they are, exit 1.
      const slipped = createCliHarness(db, { webhookKeyring: { activeKeyId: "k2", keys: new Map([["k2", randomBytes(32)]]) } });
      expect(await slipped.fails("webhooks", "reseal")).toMatch(
        /^error: 2 registration secret\(s\) do not open with WEBHOOK_SECRET_KEY and WEBHOOK_SECRET_KEYS_PREVIOUS \(event callbacks .+\): .*a new WEBHOOK_SECRET_KEY needs a new WEBHOOK_SECRET_KEY_ID/,
      );
      expect(openWebhookSecret(retired, (await createWebhookSecretRepository(db).list({ limit: 10 })).find((r) => r.id === plain.id)!)).toBe(`whsec_${plain.id}`);

      // Without the key at all, it says which setting is missing.
      expect(await createCliHarness(db).fails("webhooks", "reseal")).toBe("error: WEBHOOK_SECRET_KEY is not set");
    } finally {
      await db.$disconnect();
      if (!pool.ended) await pool.end();
      await own.drop();
    }
  });
});
