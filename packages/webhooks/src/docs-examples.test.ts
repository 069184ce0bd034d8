import { readFileSync } from "node:fs";
import path from "node:path";
import { EVENT_TYPES } from "@relay/lifecycle";
import { deliveryBody } from "./delivery-body";
import { transactionStatusChangeDataSchema, walletBalanceLowDataSchema, webhookEventSchema } from "./payloads";
import { USER_AGENT } from "./safe-http";
import { signDelivery } from "./signing";

/**
 * The example requests of docs/webhooks.md ("Payloads") are what the worker sends: the headers it
 * sets, bodies its schemas accept with exactly their fields, written as it writes them (keys
 * sorted, delivery-body.ts), and signatures that verify under the secret the page names.
 */

const page = readFileSync(path.join(__dirname, "../../../docs/webhooks.md"), "utf8");
const secret = /signed with `(whsec_[A-Za-z0-9+/=]+)`/.exec(page)?.[1] ?? "";

const examples = [...page.matchAll(/```http\n([\s\S]*?)\n```/g)].map((match) => {
  const [head = "", body = ""] = (match[1] as string).split("\n\n");
  const [requestLine, ...lines] = head.split("\n");
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1).trim()]));
  return { requestLine, headers, body };
});

describe("the payload examples of docs/webhooks.md", () => {
  it("show one request for each event type, signed with a secret the page names", () => {
    expect(secret).toMatch(/^whsec_/);
    expect(examples.map((e) => (JSON.parse(e.body) as { eventType: string }).eventType)).toEqual([...EVENT_TYPES]);
  });

  it.each(examples.map((e) => [(JSON.parse(e.body) as { eventType: string }).eventType, e] as const))("%s is a request the worker sends", (_type, example) => {
    const { requestLine, headers, body } = example;
    expect(requestLine).toMatch(/^POST \S+ HTTP\/1\.1$/);
    expect(Object.keys(headers)).toEqual(["content-type", "user-agent", "webhook-id", "webhook-timestamp", "webhook-signature", "content-length", "host", "connection"]);
    expect(headers["content-type"]).toBe("application/json");
    expect(headers["user-agent"]).toBe(USER_AGENT);
    expect(Number(headers["content-length"])).toBe(Buffer.byteLength(body));

    const event = webhookEventSchema.parse(JSON.parse(body));
    expect(headers["webhook-id"]).toBe(event.id);
    const dataSchema = event.eventType === "TransactionStatusChange" ? transactionStatusChangeDataSchema : walletBalanceLowDataSchema;
    expect(Object.keys(event.data).sort()).toEqual(Object.keys(dataSchema.shape).sort());
    expect(body).toBe(deliveryBody(JSON.parse(body)));

    const timestamp = new Date(Number(headers["webhook-timestamp"]) * 1000);
    expect(signDelivery({ secret, msgId: event.id, timestamp, body })).toEqual({
      "webhook-id": headers["webhook-id"],
      "webhook-timestamp": headers["webhook-timestamp"],
      "webhook-signature": headers["webhook-signature"],
    });
  });
});
