import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createEventCallbackRepository } from "@relay/db";
import { createProjectFixture, testKek } from "@relay/testing";
import { generateWebhookSecret, sealWebhookSecret } from "@relay/webhooks";
import { insertStatusChangeEvent, ownBackends, testWebhookWorker, until, type OwnBackends } from "./support";

/**
 * docs/webhooks.md, "Receivers that hang": a registration whose receiver accepts connections and
 * never answers must not hold every delivery slot of a worker while other projects' events wait.
 * After WEBHOOK_BREAKER_TIMEOUTS time-outs in a row its attempts are skipped (recorded as failed,
 * retried on the schedule) and one probe goes out per open period; once it answers, the rest follow.
 */
describe("a receiver that never answers", () => {
  const keyring = { activeKeyId: "k1", keys: new Map([["k1", Buffer.alloc(32, 9)]]) };
  const CONCURRENCY = 4;
  let b: OwnBackends;

  /** A receiver that takes every request and answers none until `answer()`. */
  async function receiver(answering: boolean) {
    const received: string[] = [];
    const held: ServerResponse[] = [];
    const state = { answering };
    const server: Server = createServer((req: IncomingMessage, res) => {
      req.resume();
      req.on("end", () => {
        received.push(String(req.headers["webhook-id"]));
        if (state.answering) res.end("ok");
        else held.push(res);
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
      received,
      answer: () => {
        state.answering = true;
      },
      close: async () => {
        for (const res of held.splice(0)) res.destroy();
        server.closeAllConnections();
        await new Promise((r) => server.close(r));
      },
    };
  }

  async function projectWithRegistration(url: string) {
    const project = await createProjectFixture(b.db, testKek(), { wallets: 1 });
    const registration = await createEventCallbackRepository({ sql: b.pool, db: b.db }).create({
      projectId: project.projectId,
      callbackUrl: url,
      eventType: "TransactionStatusChange",
      sealSecret: (id) => sealWebhookSecret(keyring, id, generateWebhookSecret()),
    });
    return { project, registration };
  }

  const attemptsOf = async (registrationId: string) =>
    (
      await b.pool.query<{ responseStatus: number; error: string | null }>(
        `SELECT response_status AS "responseStatus", data->>'error' AS error FROM event_callback_stat WHERE event_callback_id = $1`,
        [registrationId],
      )
    ).rows;

  beforeAll(async () => {
    b = await ownBackends("webhook-hanging-receiver", 8);
  });
  afterAll(async () => {
    await b?.close();
  });

  test("holds the worker's slots only until its breaker opens: another project's events are delivered meanwhile", async () => {
    const hanging = await receiver(false);
    const healthy = await receiver(true);
    const slow = await projectWithRegistration(hanging.url);
    const other = await projectWithRegistration(healthy.url);
    // The hanging project's events come first in the queue, five times as many as there are slots.
    for (let i = 0; i < CONCURRENCY * 5; i++) await insertStatusChangeEvent(b.pool, slow.project);
    const otherEvents: string[] = [];
    for (let i = 0; i < 4; i++) otherEvents.push(await insertStatusChangeEvent(b.pool, other.project));

    const worker = testWebhookWorker(b, keyring, CONCURRENCY, {
      totalTimeoutMs: 1000,
      retrySchedule: "1s,1s,1s,1s,1s,1s",
      breaker: { afterTimeouts: 2, openMs: 600_000 },
    });
    try {
      await worker.ready();
      await until(() => otherEvents.every((id) => healthy.received.includes(id)), 30_000, "the other project's four events");
      // Without the breaker each of the twenty would have held a slot for its full time-out first.
      // With it: the first four, and one more started by the slot the first time-out freed before
      // the second one opened the breaker.
      expect(hanging.received.length).toBeLessThanOrEqual(CONCURRENCY + 1);
      await until(async () => (await attemptsOf(slow.registration.id)).some((a) => a.error?.startsWith("circuit-open: ")), 10_000, "a skipped attempt");
    } finally {
      await worker.close();
      await Promise.all([hanging.close(), healthy.close()]);
    }
    const attempts = await attemptsOf(slow.registration.id);
    expect(attempts.filter((a) => a.error?.startsWith("timeout: "))).toHaveLength(hanging.received.length);
    expect(attempts.every((a) => a.responseStatus === 0)).toBe(true);
    const skipped = attempts.find((a) => a.error?.startsWith("circuit-open: "));
    expect(skipped?.error).toMatch(/the last \d+ attempts to this callback timed out.*retried on the schedule/);
  });

  test("once its probe is answered, every held event is delivered", async () => {
    const hanging = await receiver(false);
    const slow = await projectWithRegistration(hanging.url);
    const events: string[] = [];
    for (let i = 0; i < 8; i++) events.push(await insertStatusChangeEvent(b.pool, slow.project));

    const worker = testWebhookWorker(b, keyring, CONCURRENCY, {
      totalTimeoutMs: 500,
      retrySchedule: Array(30).fill("300ms").join(","),
      breaker: { afterTimeouts: 1, openMs: 1500 },
    });
    try {
      await worker.ready();
      await until(async () => (await attemptsOf(slow.registration.id)).some((a) => a.error?.startsWith("circuit-open: ")), 20_000, "the breaker to open");
      hanging.answer();
      await until(
        async () => Number((await b.pool.query(`SELECT count(*) AS n FROM webhook_delivery WHERE event_callback_id = $1 AND status = 'DELIVERED'`, [slow.registration.id])).rows[0].n) === events.length,
        30_000,
        "all eight delivered",
      );
    } finally {
      await worker.close();
      await hanging.close();
    }
    for (const id of events) expect(hanging.received).toContain(id);
  });
});
