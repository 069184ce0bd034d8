import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import type { RelayEvent } from "@relay/client";
import { listenForWebhooks } from "./send-and-follow";

const secret = "whsec_" + Buffer.alloc(32, 3).toString("base64");
const event = {
  id: "7a1e2c2e-3f0a-4a7e-9d55-0c1e2b3a4d5f",
  eventType: "TransactionStatusChange",
  projectId: "6f1d7c2e-3f0a-4a7e-9d55-0c1e2b3a4d5f",
  createdAt: "2026-11-26T17:00:00.000Z",
  data: { transactionId: "0b1e7c2e-3f0a-4a7e-9d55-0c1e2b3a4d5f", chainId: 31337, status: "PENDING", previousStatus: null },
};

describe("listenForWebhooks (examples/send-and-follow)", () => {
  it("hands on a verified event once, and answers 401 to a delivery not signed with the secret", async () => {
    const received: RelayEvent[] = [];
    const server = listenForWebhooks(secret, (e) => void received.push(e));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const body = JSON.stringify(event);
    const deliver = (key: string) => {
      const at = new Date();
      return fetch(url, {
        method: "POST",
        body,
        headers: { "webhook-id": event.id, "webhook-timestamp": String(Math.floor(at.getTime() / 1000)), "webhook-signature": new Webhook(key).sign(event.id, at, body) },
      });
    };
    try {
      expect((await deliver(secret)).status).toBe(200);
      expect((await deliver(secret)).status).toBe(200);
      expect((await deliver("whsec_" + Buffer.alloc(32, 4).toString("base64"))).status).toBe(401);
      expect(received.map((e) => e.id)).toEqual([event.id]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
