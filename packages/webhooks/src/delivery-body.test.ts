import { createHmac } from "node:crypto";
import { deliveryBody } from "./delivery-body";
import { generateWebhookSecret } from "./signing";
import { syndicateSignature } from "./syndicate-signature";

// As Postgres' jsonb gives a payload back: shorter keys first.
const payload = {
  id: "5b0c3c1e-8f1a-4a53-9a55-2f1e6f0b9a01",
  data: { nonce: "4", status: "CONFIRMED", blockNumber: "12", transactionId: "0f4c3c1e-8f1a-4a53-9a55-2f1e6f0b9a03" },
  createdAt: "2030-01-02T03:04:05.678Z",
  eventType: "TransactionStatusChange",
  projectId: "0f4c3c1e-8f1a-4a53-9a55-2f1e6f0b9a02",
};

/** Sorts the keys of every object, as a receiver that canonicalises before hashing does. */
const sorted = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(sorted)
    : value !== null && typeof value === "object"
      ? Object.fromEntries(Object.keys(value).sort().map((k) => [k, sorted((value as Record<string, unknown>)[k])]))
      : value;

describe("deliveryBody", () => {
  it("writes every object's keys in sorted order, whatever order the payload has them in", () => {
    const body = deliveryBody(payload);
    expect(body).toBe(JSON.stringify(sorted(payload)));
    expect(deliveryBody({ ...payload, id: payload.id })).toBe(body);
    expect(Object.keys(JSON.parse(body) as object)).toEqual(["createdAt", "data", "eventType", "id", "projectId"]);
  });

  it("gives a Syndicate signature that verifies whether the receiver attaches triggeredAt to the parsed body or sorts the keys first", () => {
    const secret = generateWebhookSecret();
    const t = Date.now();
    const body = deliveryBody(payload);
    const s = syndicateSignature({ secret, timestamp: new Date(t), body })["syndicate-signature"].split(",s=")[1];
    const hmac = (text: string) => createHmac("sha256", secret).update(text).digest("hex");
    const withTriggeredAt = { ...(JSON.parse(body) as object), triggeredAt: t };
    expect(hmac(JSON.stringify(withTriggeredAt))).toBe(s);
    expect(hmac(JSON.stringify(sorted(withTriggeredAt)))).toBe(s);
  });

  it("refuses what JSON cannot hold instead of dropping it", () => {
    expect(() => deliveryBody({ value: 1n })).toThrow();
    expect(() => deliveryBody({ fn: () => 1 })).toThrow();
  });
});
