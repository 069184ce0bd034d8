import { createHmac } from "node:crypto";
import { AppError } from "@relay/core";

/**
 * Syndicate's webhook signature (https://docs.syndicate.io/infrastructure/webhooks), sent beside
 * the Standard Webhooks headers so that a receiver written for Syndicate's hosted service verifies
 * our deliveries unchanged. Its documented verification: read `t` (milliseconds) and `s` from
 * `Syndicate-Signature: t=<ms>,s=<hex>`, take the JSON body, attach a `triggeredAt` field holding
 * `t`, and compare `s` with the hex HMAC-SHA256 of that object's JSON text, keyed with the webhook
 * secret (the string the registration returned, `whsec_` included).
 *
 * The receiver re-serializes the body it parsed, so the signed text is built the same way from the
 * bytes that are sent: parsed, `triggeredAt` appended as its last key, `JSON.stringify`d. Keys
 * that JSON.parse reorders (integer-like ones) then come out in the receiver's order too.
 */
export const SYNDICATE_SIGNATURE_HEADER = "syndicate-signature";

export interface SyndicateDeliveryToSign {
  secret: string;
  /** The secret a rotation retired, while its grace period lasts: a second `s=` for it. */
  previousSecret?: string | null;
  timestamp: Date;
  /** Exactly the bytes that will be sent, as a string: a JSON object. */
  body: string;
}

/** The text a Syndicate receiver hashes for this body at `triggeredAt` (milliseconds). */
export function syndicateSignedText(body: string, triggeredAt: number): string {
  const parsed: unknown = JSON.parse(body);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new AppError("INTERNAL", "a Syndicate-signed webhook body must be a JSON object");
  }
  return JSON.stringify({ ...parsed, triggeredAt });
}

/** `t=<ms>,s=<hex>`; during a rotation's grace period `t=<ms>,s=<current>,s=<previous>`. */
export function syndicateSignature({ secret, previousSecret, timestamp, body }: SyndicateDeliveryToSign): { [SYNDICATE_SIGNATURE_HEADER]: string } {
  const ms = timestamp.getTime();
  if (Number.isNaN(ms)) throw new AppError("INTERNAL", "a webhook timestamp must be a valid date");
  const text = syndicateSignedText(body, ms);
  const secrets = [secret, ...(previousSecret != null ? [previousSecret] : [])];
  const signatures = secrets.map((s) => `s=${createHmac("sha256", s).update(text).digest("hex")}`);
  return { [SYNDICATE_SIGNATURE_HEADER]: [`t=${ms}`, ...signatures].join(",") };
}
