import { randomBytes, randomUUID } from "node:crypto";
import type { Kek } from "@relay/secrets";
import { openPreviousWebhookSecret, openWebhookSecret, sealPreviousWebhookSecret, sealWebhookSecret } from "./secret-sealing";
import { generateWebhookSecret } from "./signing";

const keyring: Kek = { activeKeyId: "k1", keys: new Map([["k1", randomBytes(32)]]) };

describe("sealing a registration's current and previous secret", () => {
  const id = randomUUID();
  const [current, previous] = [generateWebhookSecret(), generateWebhookSecret()];
  const expiresAt = new Date("2030-01-02T03:04:05.678Z");
  const registration = {
    id,
    encryptedSecret: sealWebhookSecret(keyring, id, current),
    previousEncryptedSecret: sealPreviousWebhookSecret(keyring, id, previous, expiresAt),
    previousSecretExpiresAt: expiresAt,
  };

  it("opens the previous secret until its grace period ends, and not from then on", () => {
    expect(openWebhookSecret(keyring, registration)).toBe(current);
    expect(openPreviousWebhookSecret(keyring, registration, new Date(expiresAt.getTime() - 1))).toBe(previous);
    expect(openPreviousWebhookSecret(keyring, registration, expiresAt)).toBeNull();
    expect(openPreviousWebhookSecret(keyring, { ...registration, previousEncryptedSecret: null, previousSecretExpiresAt: null }, new Date(0))).toBeNull();
  });

  it("keeps the sealed values apart: swapped, moved to another registration or given a later expiry, they do not open", () => {
    const before = new Date(expiresAt.getTime() - 60_000);
    expect(() => openWebhookSecret(keyring, { id, encryptedSecret: registration.previousEncryptedSecret })).toThrow(/failed authentication/);
    expect(() => openPreviousWebhookSecret(keyring, { ...registration, previousEncryptedSecret: registration.encryptedSecret }, before)).toThrow(/failed authentication/);
    expect(() => openPreviousWebhookSecret(keyring, { ...registration, id: randomUUID() }, before)).toThrow(/failed authentication/);
    const later = new Date(expiresAt.getTime() + 86_400_000);
    expect(() => openPreviousWebhookSecret(keyring, { ...registration, previousSecretExpiresAt: later }, before)).toThrow(/failed authentication/);
  });
});
