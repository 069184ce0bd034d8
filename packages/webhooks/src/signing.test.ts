import { createHmac } from "node:crypto";
import { AppError } from "@relay/core";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { generateWebhookSecret, signDelivery } from "./signing";

const body = JSON.stringify({ id: "5b0c3c1e-8f1a-4a53-9a55-2f1e6f0b9a01", eventType: "WalletBalanceLow", data: { balance: "1" } });
const msgId = "5b0c3c1e-8f1a-4a53-9a55-2f1e6f0b9a01";

describe("generateWebhookSecret", () => {
  it("is whsec_ + base64 of 32 random bytes", () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), "base64")).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
  });
});

describe("signDelivery", () => {
  it("is accepted by the standardwebhooks package's verify", () => {
    const secret = generateWebhookSecret();
    const headers = signDelivery({ secret, msgId, timestamp: new Date(), body });
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
  });

  it("sends the id, Unix seconds and a v1 HMAC-SHA256 of id.timestamp.body, as the spec computes it", () => {
    const secret = generateWebhookSecret();
    const timestamp = new Date("2030-01-02T03:04:05.678Z");
    const headers = signDelivery({ secret, msgId, timestamp, body });
    const seconds = String(Math.floor(timestamp.getTime() / 1000));
    const key = Buffer.from(secret.slice("whsec_".length), "base64");
    const mac = createHmac("sha256", key).update(`${msgId}.${seconds}.${body}`, "utf8").digest("base64");
    expect(headers).toEqual({ "webhook-id": msgId, "webhook-timestamp": seconds, "webhook-signature": `v1,${mac}` });
  });

  it("is rejected for a tampered body, a wrong secret, another id, or a stale timestamp", () => {
    const secret = generateWebhookSecret();
    const headers = { ...signDelivery({ secret, msgId, timestamp: new Date(), body }) };
    const verify = (s: string, b: string, h: Record<string, string>) => () => new Webhook(s).verify(b, h);
    expect(verify(secret, body.replace('"1"', '"2"'), headers)).toThrow(WebhookVerificationError);
    expect(verify(generateWebhookSecret(), body, headers)).toThrow(WebhookVerificationError);
    expect(verify(secret, body, { ...headers, "webhook-id": "another-id" })).toThrow(WebhookVerificationError);
    // Receivers refuse timestamps more than 5 minutes old: each retry must be signed anew.
    const stale = { ...signDelivery({ secret, msgId, timestamp: new Date(Date.now() - 10 * 60_000), body }) };
    expect(verify(secret, body, stale)).toThrow("Message timestamp too old");
  });

  it("signs non-ASCII bodies as UTF-8", () => {
    const secret = generateWebhookSecret();
    const text = JSON.stringify({ reason: "échec — 失败 🙂" });
    expect(new Webhook(secret).verify(text, { ...signDelivery({ secret, msgId, timestamp: new Date(), body: text }) })).toEqual(
      JSON.parse(text),
    );
  });

  it("signs with the current and the previous secret during a rotation: two v1 entries, either secret verifies, no other does", () => {
    const [secret, previousSecret] = [generateWebhookSecret(), generateWebhookSecret()];
    const timestamp = new Date();
    const headers = { ...signDelivery({ secret, previousSecret, msgId, timestamp, body }) };
    const seconds = String(Math.floor(timestamp.getTime() / 1000));
    const mac = (s: string) => createHmac("sha256", Buffer.from(s.slice("whsec_".length), "base64")).update(`${msgId}.${seconds}.${body}`, "utf8").digest("base64");
    // The spec's form: space-separated entries, the current secret's first.
    expect(headers["webhook-signature"]).toBe(`v1,${mac(secret)} v1,${mac(previousSecret)}`);
    expect(headers["webhook-id"]).toBe(msgId);
    expect(headers["webhook-timestamp"]).toBe(seconds);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previousSecret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow(WebhookVerificationError);
    // Without a previous secret (none, or its grace period over): one entry, as before.
    for (const none of [null, undefined]) {
      const single = signDelivery({ secret, previousSecret: none, msgId, timestamp, body })["webhook-signature"];
      expect(single).toBe(`v1,${mac(secret)}`);
      expect(() => new Webhook(previousSecret).verify(body, { ...headers, "webhook-signature": single })).toThrow(WebhookVerificationError);
    }
  });

  it("refuses a secret we would not issue, an id that makes the signed text ambiguous, an invalid date", () => {
    const ok = { secret: generateWebhookSecret(), msgId, timestamp: new Date(), body };
    const codeOf = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e instanceof AppError ? e.code : "not an AppError";
      }
      return "no error";
    };
    for (const secret of ["", "whsec_", "whsec_not base64!", `whsec_${Buffer.alloc(16).toString("base64")}`, Buffer.alloc(32).toString("base64")]) {
      expect(codeOf(() => signDelivery({ ...ok, secret }))).toBe("CRYPTO");
      expect(codeOf(() => signDelivery({ ...ok, previousSecret: secret }))).toBe("CRYPTO");
    }
    expect(codeOf(() => signDelivery({ ...ok, msgId: "a.b" }))).toBe("INTERNAL");
    expect(codeOf(() => signDelivery({ ...ok, msgId: "" }))).toBe("INTERNAL");
    expect(codeOf(() => signDelivery({ ...ok, timestamp: new Date("nope") }))).toBe("INTERNAL");
  });
});
