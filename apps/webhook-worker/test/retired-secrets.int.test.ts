import { createEventCallbackRepository } from "@relay/db";
import { createProjectFixture, testKek } from "@relay/testing";
import { generateWebhookSecret, sealPreviousWebhookSecret, sealWebhookSecret } from "@relay/webhooks";
import { CLOCK_SKEW_MARGIN_MS } from "../src/processors/clear-retired-secrets.processor";
import { ownBackends, testWebhookWorker, until, type OwnBackends } from "./support";

/** docs/webhooks.md, "Rotating a secret": a retired secret is erased once its grace period is over. */
describe("the webhook worker's schedule", () => {
  const keyring = { activeKeyId: "k1", keys: new Map([["k1", Buffer.alloc(32, 9)]]) };
  let b: OwnBackends;

  beforeAll(async () => {
    b = await ownBackends("webhook-retired", 4);
  });
  afterAll(() => b?.close());

  it("erases a retired secret whose grace period (and the clock-skew margin) has ended; keeps one just ended and one whose grace period runs", async () => {
    const project = await createProjectFixture(b.db, testKek(), { wallets: 0 });
    const callbacks = createEventCallbackRepository({ sql: b.pool, db: b.db });
    const register = () =>
      callbacks.create({
        projectId: project.projectId,
        callbackUrl: "https://receiver.example/hook",
        eventType: "TransactionStatusChange",
        sealSecret: (id) => sealWebhookSecret(keyring, id, generateWebhookSecret()),
      });
    const rotate = (id: string, expiresAt: Date) =>
      callbacks.rotateSecret(id, () => ({
        encryptedSecret: sealWebhookSecret(keyring, id, generateWebhookSecret()),
        previous: { encryptedSecret: sealPreviousWebhookSecret(keyring, id, generateWebhookSecret(), expiresAt), expiresAt },
      }));
    const [ended, justEnded, running] = [await register(), await register(), await register()];
    await rotate(ended.id, new Date(Date.now() - CLOCK_SKEW_MARGIN_MS - 1000));
    // Ended by this clock, but a worker whose clock is behind by less than the margin may still sign with it.
    await rotate(justEnded.id, new Date(Date.now() - 1000));
    await rotate(running.id, new Date(Date.now() + 3_600_000));
    const previousOf = async (id: string) =>
      (await b.pool.query<{ p: string | null; e: Date | null }>(`SELECT previous_encrypted_secret AS p, previous_secret_expires_at AS e FROM event_callback WHERE id = $1`, [id]))
        .rows[0]!;

    const worker = testWebhookWorker(b, keyring, 1);
    try {
      await worker.ready();
      await worker.schedule();
      await until(async () => (await previousOf(ended.id)).p === null, 10_000, "the ended grace period's secret erased");
    } finally {
      await worker.close();
    }
    expect(await previousOf(ended.id)).toEqual({ p: null, e: null });
    expect((await previousOf(justEnded.id)).p).not.toBeNull();
    expect((await previousOf(running.id)).p).not.toBeNull();
  });
});
