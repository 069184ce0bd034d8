import { needsReseal, open, seal, type Kek } from "@relay/secrets";

/** What binds a sealed secret to its registration: a ciphertext copied to another row does not open. */
const aad = (eventCallbackId: string) => `event-callback:${eventCallbackId}`;

/**
 * The associated data of a secret a rotation retired: its own, so the current and the previous
 * sealed values cannot be swapped, and bound to the end of its grace period, so a changed
 * `previous_secret_expires_at` (to sign longer with a retired secret) makes it fail to open.
 */
const previousAad = (eventCallbackId: string, expiresAt: Date) => `event-callback:${eventCallbackId}:previous-until:${expiresAt.toISOString()}`;

/** Seals a registration's secret under the webhook key (not the wallet KEK; docs/webhooks.md). */
export const sealWebhookSecret = (keyring: Kek, eventCallbackId: string, secret: string): string =>
  seal(keyring, Buffer.from(secret, "utf8"), aad(eventCallbackId));

export const openWebhookSecret = (keyring: Kek, registration: { id: string; encryptedSecret: string }): string =>
  open(keyring, registration.encryptedSecret, aad(registration.id)).toString("utf8");

/** Seals the secret a rotation retires, still signed with until `expiresAt` (docs/webhooks.md, "Rotating a secret"). */
export const sealPreviousWebhookSecret = (keyring: Kek, eventCallbackId: string, secret: string, expiresAt: Date): string =>
  seal(keyring, Buffer.from(secret, "utf8"), previousAad(eventCallbackId, expiresAt));

export interface RegistrationWithPreviousSecret {
  id: string;
  previousEncryptedSecret: string | null;
  previousSecretExpiresAt: Date | null;
}

/**
 * The retired secret while its grace period lasts at `now`; null when there is none or it has
 * ended (the sealed value may stay in the row: it is never opened after that).
 */
export function openPreviousWebhookSecret(keyring: Kek, registration: RegistrationWithPreviousSecret, now: Date): string | null {
  const { previousEncryptedSecret: sealed, previousSecretExpiresAt: expiresAt } = registration;
  if (sealed === null || expiresAt === null || now.getTime() >= expiresAt.getTime()) return null;
  return open(keyring, sealed, previousAad(registration.id, expiresAt)).toString("utf8");
}

/**
 * A registration's secrets sealed again under the keyring's active key, or null when both already
 * are (they are opened all the same: a key given the old key's id would otherwise pass as done).
 * The retired secret is re-sealed only while its grace period lasts at `now`; after that it is
 * never opened again, and the webhook workers erase it. Throws (CONFIG, CRYPTO) when a secret
 * does not open with the keyring.
 */
export function resealWebhookSecrets(
  keyring: Kek,
  registration: { id: string; encryptedSecret: string } & RegistrationWithPreviousSecret,
  now: Date,
): { encryptedSecret: string; previousEncryptedSecret: string | null } | null {
  const current = open(keyring, registration.encryptedSecret, aad(registration.id));
  const { previousEncryptedSecret: retired, previousSecretExpiresAt: expiresAt } = registration;
  const retiredLive = retired !== null && expiresAt !== null && now.getTime() < expiresAt.getTime();
  const previous = retiredLive ? open(keyring, retired, previousAad(registration.id, expiresAt)) : null;
  try {
    if (!needsReseal(keyring, registration.encryptedSecret) && !(retiredLive && needsReseal(keyring, retired))) return null;
    return {
      encryptedSecret: seal(keyring, current, aad(registration.id)),
      previousEncryptedSecret: previous && expiresAt ? seal(keyring, previous, previousAad(registration.id, expiresAt)) : retired,
    };
  } finally {
    current.fill(0);
    previous?.fill(0);
  }
}
