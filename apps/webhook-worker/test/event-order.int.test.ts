import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createEventCallbackRepository } from "@relay/db";
import { createProjectFixture, testKek } from "@relay/testing";
import { generateWebhookSecret, sealWebhookSecret } from "@relay/webhooks";
import { ownBackends, testWebhookWorker, until, type OwnBackends } from "./support";

/**
 * docs/webhooks.md, "Order per subject": a transaction's events reach a receiver in the order they
 * were written, even when they share created_at (statuses changed within one millisecond). The
 * events' ids run backwards, so an order by (created_at, id) would deliver them in reverse.
 */
describe("events of one transaction written in the same millisecond", () => {
  const keyring = { activeKeyId: "k1", keys: new Map([["k1", Buffer.alloc(32, 7)]]) };
  let b: OwnBackends;
  let server: Server;
  const arrived: string[] = [];

  beforeAll(async () => {
    b = await ownBackends("webhook-order", 8);
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        arrived.push(String(req.headers["webhook-id"]));
        res.end("ok");
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  });
  afterAll(async () => {
    await new Promise((r) => server?.close(r));
    await b?.close();
  });

  it("are delivered in the order they were written, not in the order of their ids", async () => {
    const project = await createProjectFixture(b.db, testKek(), { wallets: 0 });
    await createEventCallbackRepository({ sql: b.pool, db: b.db }).create({
      projectId: project.projectId,
      callbackUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
      eventType: "TransactionStatusChange",
      sealSecret: (id) => sealWebhookSecret(keyring, id, generateWebhookSecret()),
    });
    const transactionId = randomUUID();
    const createdAt = new Date("2026-11-22T12:00:00.123Z");
    const statuses = ["PENDING", "SUBMITTED", "PAUSED", "SUBMITTED", "CONFIRMED"];
    // ffffffff-…, eeeeeeee-…, …: each id sorts before the one written before it.
    const written = statuses.map((_, i) => `${(15 - i).toString(16).repeat(8)}-0000-4000-8000-000000000000`);
    for (const [i, id] of written.entries()) {
      const payload = {
        id,
        eventType: "TransactionStatusChange",
        projectId: project.projectId,
        createdAt: createdAt.toISOString(),
        data: { transactionId, chainId: 31337, status: statuses[i], previousStatus: statuses[i - 1] ?? null, hash: null, blockNumber: null, from: null, nonce: null, reason: null },
      };
      await b.pool.query(
        `INSERT INTO event (id, project_id, event_type, subject, payload, created_at) VALUES ($1, $2, 'TransactionStatusChange', $3, $4, $5)`,
        [id, project.projectId, transactionId, JSON.stringify(payload), createdAt],
      );
    }

    // Started after the writes: all five deliveries exist at once and their jobs run side by side,
    // so only the order check keeps them in line.
    const worker = testWebhookWorker(b, keyring, 16);
    try {
      await worker.ready();
      await until(() => arrived.length >= written.length, 20_000, "all five deliveries");
    } finally {
      await worker.close();
    }
    expect(arrived).toEqual(written);
  });
});
