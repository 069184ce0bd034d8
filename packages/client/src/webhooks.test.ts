import { Webhook } from "standardwebhooks";
import { verifyWebhook, WebhookVerificationError } from "./webhooks";

const secret = "whsec_" + Buffer.alloc(32, 7).toString("base64");
const event = {
  id: "58625389-4eed-4c2c-aed5-30d5051fb852",
  eventType: "TransactionStatusChange",
  projectId: "937e2068-6640-4f72-bbd5-2e5ce5bac7e7",
  createdAt: "2026-11-24T18:50:08.818Z",
  data: { transactionId: "f1ce460a-0edd-4ddc-a5bf-82cfb40bf3ec", chainId: 31401, status: "CONFIRMED", previousStatus: "SUBMITTED" },
};
const deliver = (body: string, at = new Date(), key = secret) => ({
  "webhook-id": event.id,
  "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
  "webhook-signature": new Webhook(key).sign(event.id, at, body),
});

describe("verifyWebhook", () => {
  const body = JSON.stringify(event);

  it("returns the event of a signed delivery as sent, chainId a number", () => {
    const verified = verifyWebhook(secret, body, deliver(body));
    expect(verified).toEqual(event);
  });

  it("reads headers from a fetch Headers object and a Buffer body", () => {
    expect(verifyWebhook(secret, Buffer.from(body), new Headers(deliver(body))).id).toBe(event.id);
  });

  it("refuses another secret, a changed body, a stale timestamp and a missing header", () => {
    const other = "whsec_" + Buffer.alloc(32, 8).toString("base64");
    expect(() => verifyWebhook(secret, body, deliver(body, new Date(), other))).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(secret, body.replace("CONFIRMED", "REVERTED"), deliver(body))).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(secret, body, deliver(body, new Date(Date.now() - 6 * 60_000)))).toThrow(WebhookVerificationError);
    const { "webhook-signature": _dropped, ...unsigned } = deliver(body);
    expect(() => verifyWebhook(secret, body, unsigned)).toThrow("webhook-signature header is missing");
  });

  it("refuses a signed payload that is not a relay event", () => {
    const foreign = JSON.stringify({ hello: "world" });
    expect(() => verifyWebhook(secret, foreign, deliver(foreign))).toThrow("not a relay event");
  });
});
