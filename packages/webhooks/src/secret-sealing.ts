import { open, seal, type Kek } from "@relay/secrets";

/** What binds a sealed secret to its registration: a ciphertext copied to another row does not open. */
const aad = (eventCallbackId: string) => `event-callback:${eventCallbackId}`;

/** Seals a registration's secret under the webhook key (not the wallet KEK; docs/webhooks.md). */
export const sealWebhookSecret = (keyring: Kek, eventCallbackId: string, secret: string): string =>
  seal(keyring, Buffer.from(secret, "utf8"), aad(eventCallbackId));

export const openWebhookSecret = (keyring: Kek, registration: { id: string; encryptedSecret: string }): string =>
  open(keyring, registration.encryptedSecret, aad(registration.id)).toString("utf8");
