import { randomBytes } from "node:crypto";
import { AppError } from "@relay/core";
import { Webhook } from "standardwebhooks";

/**
 * Standard Webhooks v1 (https://www.standardwebhooks.com): receivers verify our deliveries with
 * the `standardwebhooks` package or any other implementation of the spec, so we sign with the
 * same package rather than with our own HMAC code.
 */

export interface WebhookHeaders {
  /** The event id: the same on every retry, so receivers can deduplicate. */
  "webhook-id": string;
  /** Unix seconds of this attempt; receivers refuse one more than 5 minutes away from their clock. */
  "webhook-timestamp": string;
  /**
   * `v1,<base64 HMAC-SHA256(key, "{id}.{timestamp}.{body}")>`; during a rotation's grace period two
   * of them, space-separated, the current secret's first (a receiver accepts any one that verifies).
   */
  "webhook-signature": string;
}

const PREFIX = "whsec_";
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** `whsec_` + base64 of 32 random bytes; shown to the project once, stored sealed. */
export function generateWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString("base64");
}

export interface DeliveryToSign {
  secret: string;
  /**
   * The secret a rotation retired, while its grace period lasts: the delivery is signed with it
   * too, so a receiver that has not switched yet still verifies (docs/webhooks.md, "Rotating a secret").
   */
  previousSecret?: string | null;
  msgId: string;
  timestamp: Date;
  /** Exactly the bytes that will be sent, as a string (sent as UTF-8). */
  body: string;
}

export function signDelivery({ secret, previousSecret, msgId, timestamp, body }: DeliveryToSign): WebhookHeaders {
  assertSecret(secret);
  if (previousSecret != null) assertSecret(previousSecret);
  // The signed text is "{id}.{timestamp}.{body}": an id with a dot, or a header-breaking
  // character, would make it ambiguous or unsendable.
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(msgId)) throw new AppError("INTERNAL", "a webhook id must be 1-128 characters of [A-Za-z0-9_-]");
  if (Number.isNaN(timestamp.getTime())) throw new AppError("INTERNAL", "a webhook timestamp must be a valid date");
  return {
    "webhook-id": msgId,
    "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
    // The spec's multi-signature form: space-separated `v1,<sig>` entries, as Svix sends during a rotation.
    "webhook-signature": [secret, ...(previousSecret != null ? [previousSecret] : [])].map((s) => new Webhook(s).sign(msgId, timestamp, body)).join(" "),
  };
}

/**
 * The package decodes whatever follows the prefix leniently; a secret that is not what we issue
 * (a wrong unsealed value, a truncated column) must stop the delivery instead of signing with
 * a key no receiver holds. The spec allows keys of 24 to 64 bytes.
 */
function assertSecret(secret: string): void {
  const encoded = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : "";
  const bytes = BASE64.test(encoded) ? Buffer.from(encoded, "base64").length : 0;
  if (bytes < 24 || bytes > 64) {
    throw new AppError("CRYPTO", "the webhook secret is not whsec_ followed by base64 of 24 to 64 bytes");
  }
}
