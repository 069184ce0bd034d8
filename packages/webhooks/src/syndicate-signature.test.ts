import { createHmac } from "node:crypto";
import { generateWebhookSecret } from "./signing";
import { syndicateSignature, syndicateSignedText } from "./syndicate-signature";

const body = JSON.stringify({
  id: "5b0c3c1e-8f1a-4a53-9a55-2f1e6f0b9a01",
  eventType: "TransactionStatusChange",
  projectId: "0f4c3c1e-8f1a-4a53-9a55-2f1e6f0b9a02",
  createdAt: "2030-01-02T03:04:05.678Z",
  data: { status: "CONFIRMED", reason: "échec — 失败 🙂", "1": "integer-like key" },
});

/** Syndicate's documented steps: body + triggeredAt (ms), JSON text, hex HMAC-SHA256 keyed with the secret string. */
const documented = (raw: string, secret: string, t: number) =>
  createHmac("sha256", secret).update(JSON.stringify({ ...(JSON.parse(raw) as object), triggeredAt: t })).digest("hex");

describe("syndicateSignature", () => {
  it("is t=<milliseconds>,s=<hex HMAC-SHA256 of the body with triggeredAt attached>, as Syndicate's receivers compute it", () => {
    const secret = generateWebhookSecret();
    const timestamp = new Date("2030-01-02T03:04:05.678Z");
    const header = syndicateSignature({ secret, timestamp, body })["syndicate-signature"];
    expect(header).toBe(`t=${timestamp.getTime()},s=${documented(body, secret, timestamp.getTime())}`);
  });

  it("signs what a receiver re-serializes: triggeredAt last, integer-like keys where JSON.parse puts them", () => {
    const text = syndicateSignedText(body, 5);
    expect(text.endsWith(',"triggeredAt":5}')).toBe(true);
    expect(text).toBe(JSON.stringify({ ...(JSON.parse(body) as object), triggeredAt: 5 }));
  });

  it("does not verify a changed body, another timestamp or another secret", () => {
    const secret = generateWebhookSecret();
    const t = Date.now();
    const s = syndicateSignature({ secret, timestamp: new Date(t), body })["syndicate-signature"].split(",s=")[1];
    expect(s).toBe(documented(body, secret, t));
    expect(s).not.toBe(documented(body.replace("CONFIRMED", "REVERTED"), secret, t));
    expect(s).not.toBe(documented(body, secret, t + 1));
    expect(s).not.toBe(documented(body, generateWebhookSecret(), t));
  });

  it("carries a second s= for the previous secret during a rotation's grace period, the current one first", () => {
    const [secret, previousSecret] = [generateWebhookSecret(), generateWebhookSecret()];
    const t = Date.now();
    const header = syndicateSignature({ secret, previousSecret, timestamp: new Date(t), body })["syndicate-signature"];
    expect(header).toBe(`t=${t},s=${documented(body, secret, t)},s=${documented(body, previousSecret, t)}`);
    expect(syndicateSignature({ secret, previousSecret: null, timestamp: new Date(t), body })["syndicate-signature"].split(",")).toHaveLength(2);
  });

  it("refuses a body that is not a JSON object and an invalid timestamp", () => {
    const secret = generateWebhookSecret();
    expect(() => syndicateSignature({ secret, timestamp: new Date(), body: "[1]" })).toThrow(/JSON object/);
    expect(() => syndicateSignature({ secret, timestamp: new Date("nope"), body })).toThrow(/valid date/);
  });
});
