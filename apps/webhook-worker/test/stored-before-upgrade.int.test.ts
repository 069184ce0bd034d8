import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createEventCallbackRepository } from "@relay/db";
import { createProjectFixture, testKek } from "@relay/testing";
import { generateWebhookSecret, sealWebhookSecret, signDelivery, webhookEventSchema } from "@relay/webhooks";
import { ownBackends, testWebhookWorker, until, type OwnBackends } from "./support";

/**
 * Events already in the outbox when the relay is upgraded were stored with `data.chainId` as a
 * decimal string. Receivers are promised a number (docs/operations.md, "What receivers see change"): the worker
 * delivers such a row in today's shape, signed over the bytes it sends.
 */
describe("events stored by an earlier version", () => {
  const keyring = { activeKeyId: "k1", keys: new Map([["k1", Buffer.alloc(32, 5)]]) };
  let b: OwnBackends;
  let server: Server;
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];

  beforeAll(async () => {
    b = await ownBackends("webhook-stored-before", 4);
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        received.push({ headers: req.headers, body });
        res.end("ok");
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  });
  afterAll(async () => {
    await new Promise((r) => server?.close(r));
    await b?.close();
  });

  it("are delivered with chainId a number, as events written today are, and verify", async () => {
    const project = await createProjectFixture(b.db, testKek(), { wallets: 0 });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const secrets: Record<string, string> = {};
    for (const eventType of ["TransactionStatusChange", "WalletBalanceLow"] as const) {
      const secret = generateWebhookSecret();
      await createEventCallbackRepository({ sql: b.pool, db: b.db }).create({
        projectId: project.projectId,
        callbackUrl: url,
        eventType,
        sealSecret: (id) => sealWebhookSecret(keyring, id, secret),
      });
      secrets[eventType] = secret;
    }
    const createdAt = new Date().toISOString();
    const transactionId = randomUUID();
    // As an earlier version's statements wrote them: chainId '31337' (chain_id::text).
    const stored = [
      {
        id: randomUUID(),
        eventType: "TransactionStatusChange",
        projectId: project.projectId,
        createdAt,
        data: { transactionId, chainId: "31337", status: "PENDING", previousStatus: null, hash: null, blockNumber: null, from: null, nonce: null, reason: null },
      },
      {
        id: randomUUID(),
        eventType: "WalletBalanceLow",
        projectId: project.projectId,
        createdAt,
        data: { walletAddress: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", chainId: "8453", balance: "1", threshold: "2" },
      },
    ];
    for (const payload of stored) {
      await b.pool.query(`INSERT INTO event (id, project_id, event_type, subject, payload, created_at) VALUES ($1, $2, $3, $4, $5, now())`, [
        payload.id,
        project.projectId,
        payload.eventType,
        payload.eventType === "TransactionStatusChange" ? transactionId : null,
        JSON.stringify(payload),
      ]);
    }

    const worker = testWebhookWorker(b, keyring, 2);
    await worker.ready();
    try {
      await until(() => received.length >= 2, 15_000, "both stored events delivered");
    } finally {
      await worker.close();
    }

    // Signed over the bytes sent: the converted body, not the stored one.
    const events = received.map(({ headers, body }) => {
      const event = JSON.parse(body) as { id: string; eventType: string; data: { chainId: unknown } };
      const timestamp = new Date(Number(headers["webhook-timestamp"]) * 1000);
      expect(signDelivery({ secret: secrets[event.eventType]!, msgId: event.id, timestamp, body })["webhook-signature"]).toBe(headers["webhook-signature"]);
      return event;
    });
    const byType = Object.fromEntries(events.map((e) => [e.eventType, e]));
    expect(byType.TransactionStatusChange!.data.chainId).toBe(31337);
    expect(byType.WalletBalanceLow!.data.chainId).toBe(8453);
    for (const event of events) expect(webhookEventSchema.safeParse(event).success).toBe(true);
    // The row stays as it was stored: the conversion is made on the way out.
    const rows = (await b.pool.query<{ chainId: string }>(`SELECT payload->'data'->>'chainId' AS "chainId" FROM event ORDER BY seq`)).rows;
    expect(rows.map((r) => r.chainId)).toEqual(["31337", "8453"]);
  });
});
