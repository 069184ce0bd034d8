import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { createReceiver, type WebhookEvent } from "./server";

const newSecret = () => `whsec_${randomBytes(32).toString("base64")}`;
const secret = newSecret();

let server: Server;
let url: string;
const received: Array<{ event: WebhookEvent; webhookId: string }> = [];

beforeAll(async () => {
  server = createReceiver({ secret, onEvent: (event, webhookId) => void received.push({ event, webhookId }) });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise((r) => server.close(r)));
beforeEach(() => (received.length = 0));

/** Signs like the relay does: webhook-id, webhook-timestamp, webhook-signature over the exact body. */
function signed(body: string, id: string, withSecret = secret): Record<string, string> {
  const timestamp = new Date();
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
    "webhook-signature": new Webhook(withSecret).sign(id, timestamp, body),
  };
}

const eventBody = (id: string) =>
  JSON.stringify({ id, eventType: "TransactionStatusChange", projectId: "p1", createdAt: new Date().toISOString(), data: { transactionId: "t1", status: "CONFIRMED" } });

const send = (body: string, headers: Record<string, string>) => fetch(url, { method: "POST", body, headers });

test("a correctly signed event is passed to onEvent once and answered 200", async () => {
  const id = `evt_${randomBytes(8).toString("hex")}`;
  const res = await send(eventBody(id), signed(eventBody(id), id));
  expect(res.status).toBe(200);
  expect(received).toHaveLength(1);
  expect(received[0]).toMatchObject({ webhookId: id, event: { id, eventType: "TransactionStatusChange", data: { status: "CONFIRMED" } } });
});

test("the same webhook-id again (a retry, newly signed) is answered 200 without calling onEvent again", async () => {
  const id = `evt_${randomBytes(8).toString("hex")}`;
  const body = eventBody(id);
  expect((await send(body, signed(body, id))).status).toBe(200);
  expect((await send(body, signed(body, id))).status).toBe(200);
  expect(received).toHaveLength(1);
});

test("a tampered body or a signature made with another secret is answered 401 and not passed on", async () => {
  const id = `evt_${randomBytes(8).toString("hex")}`;
  const body = eventBody(id);
  const tampered = body.replace("CONFIRMED", "FAILED");
  expect((await send(tampered, signed(body, id))).status).toBe(401);
  expect((await send(body, signed(body, id, newSecret()))).status).toBe(401);
  expect((await send(body, { "content-type": "application/json" })).status).toBe(401);
  expect(received).toHaveLength(0);
  // A rejected attempt does not mark the id as seen: the genuine event still gets through.
  expect((await send(body, signed(body, id))).status).toBe(200);
  expect(received).toHaveLength(1);
});

test("a failing onEvent answers 500 and the retry is processed", async () => {
  let fail = true;
  const calls: string[] = [];
  const flaky = createReceiver({
    secret,
    onEvent: (_event, webhookId) => {
      calls.push(webhookId);
      if (fail) throw new Error("storage down");
    },
  });
  await new Promise<void>((r) => flaky.listen(0, "127.0.0.1", () => r()));
  try {
    const target = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}/`;
    const id = `evt_${randomBytes(8).toString("hex")}`;
    const body = eventBody(id);
    expect((await fetch(target, { method: "POST", body, headers: signed(body, id) })).status).toBe(500);
    fail = false;
    expect((await fetch(target, { method: "POST", body, headers: signed(body, id) })).status).toBe(200);
    expect(calls).toEqual([id, id]);
  } finally {
    await new Promise((r) => flaky.close(r));
  }
});
