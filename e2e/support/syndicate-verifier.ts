import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * A receiver's check of `Syndicate-Signature`, written from Syndicate's documented steps
 * (https://docs.syndicate.io/infrastructure/webhooks, "Verifying Signatures") and nothing of ours:
 * split the header on `,` then `=` (`t`: the timestamp in milliseconds, `s`: the signature); take
 * the JSON body and attach a `triggeredAt` field with the timestamp; HMAC-SHA256 it with the
 * webhook secret; compare; trust only timestamps less than 5 minutes old.
 *
 * Every `s` element is tried (there are two during a secret rotation's grace period).
 */
export function verifySyndicateSignature(header: string | undefined, rawBody: string, secret: string, now = Date.now()): boolean {
  if (!header) return false;
  let timestamp: string | undefined;
  const signatures: string[] = [];
  for (const element of header.split(",")) {
    const [prefix, value] = element.split("=");
    if (prefix === "t") timestamp = value;
    if (prefix === "s" && value) signatures.push(value);
  }
  if (timestamp === undefined || signatures.length === 0) return false;
  const triggeredAt = parseInt(timestamp, 10);
  if (!Number.isFinite(triggeredAt) || now - triggeredAt > 5 * 60_000) return false;
  const body = JSON.parse(rawBody) as Record<string, unknown>;
  const payload = { ...body, triggeredAt };
  const expected = createHmac("sha256", secret).update(JSON.stringify(payload)).digest("hex");
  return signatures.some((s) => s.length === expected.length && timingSafeEqual(Buffer.from(s), Buffer.from(expected)));
}
