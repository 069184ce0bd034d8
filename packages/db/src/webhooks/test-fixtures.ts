import { randomBytes } from "node:crypto";
import { Client, escapeIdentifier, type Pool } from "pg";
import { createLogger } from "@relay/core";
import type { EventType } from "@relay/lifecycle";
import { seal, type Kek } from "@relay/secrets";
import { createDatabase, createPool, type Database } from "../client";
import { ensureDatabase, withDatabase } from "../migrate/ensure-database";
import { migrate } from "../migrate/migrate";
import { testDatabasePooler, testDirectDatabaseUrl } from "@relay/config";
import { createTransactionRepository, type TransactionRepository } from "../transactions/transaction.repository";
import { createEventCallbackRepository, type EventCallbackRepository } from "./event-callback.repository";
import { createEventDispatchRepository, type EventDispatchRepository } from "./event-dispatch.repository";
import { createWalletBalanceRepository, type WalletBalanceRepository } from "./wallet-balance.repository";
import { createWebhookDeliveryRepository, type WebhookDeliveryRepository } from "./webhook-delivery.repository";
import type { EventCallbackRecord } from "./webhook-records";

/**
 * What the webhook integration tests share. Each test file gets a database of its own (named like
 * @relay/testing's, so a crashed run's leftover is cleaned up): claimUndispatched takes every
 * project's events, and in the run's shared database it would dispatch the events other test
 * files are looking at, and theirs would take ours.
 */
export interface WebhookTestContext {
  /** The file's own database. */
  url: string;
  pool: Pool;
  db: Database;
  callbacks: EventCallbackRepository;
  dispatch: EventDispatchRepository;
  deliveries: WebhookDeliveryRepository;
  balances: WalletBalanceRepository;
  transactions: TransactionRepository;
  /** Claims until no event is left undispatched; every delivery created, in order. */
  drain(batch?: number): Promise<Awaited<ReturnType<EventDispatchRepository["claimUndispatched"]>>>;
  close(): Promise<void>;
}

export async function webhookTestContext(): Promise<WebhookTestContext> {
  const runUrl = process.env.RELAY_TEST_DATABASE_URL;
  if (!runUrl) throw new Error("RELAY_TEST_DATABASE_URL is not set: run through jest with the workspace jest.config.js");
  const name = `relay_test_${Math.floor(Date.now() / 1000).toString(36)}_${randomBytes(5).toString("hex")}`;
  const url = withDatabase(runUrl, name);
  // Created and migrated on Postgres itself; the tests then use it through the pooler, if any.
  const directRunUrl = testDirectDatabaseUrl() ?? runUrl;
  const direct = withDatabase(directRunUrl, name);
  await ensureDatabase(direct);
  await migrate({ databaseUrl: direct, logger: createLogger({ name: "webhook-test-migrate", level: "silent" }) });

  // Enough connections for the concurrency tests to really run side by side.
  const pool = createPool({ url, poolSize: 20, pooler: testDatabasePooler() });
  const db = createDatabase({ pool });
  const dispatch = createEventDispatchRepository(pool);
  const undispatched = async () => (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM event WHERE dispatched_at IS NULL`)).rows[0]?.n ?? 0;
  return {
    url,
    pool,
    db,
    callbacks: createEventCallbackRepository({ sql: pool, db }),
    dispatch,
    deliveries: createWebhookDeliveryRepository(pool),
    balances: createWalletBalanceRepository(pool),
    transactions: createTransactionRepository({ sql: pool, db }),
    drain: async (batch = 100) => {
      const all = [];
      while ((await undispatched()) > 0) all.push(...(await dispatch.claimUndispatched(batch)));
      return all;
    },
    close: async () => {
      await db.$disconnect();
      // $disconnect ends the shared pool only if Prisma itself ever connected.
      if (!pool.ended) await pool.end();
      const server = new Client({ connectionString: withDatabase(directRunUrl, "postgres") });
      await server.connect();
      try {
        await server.query(`DROP DATABASE IF EXISTS ${escapeIdentifier(name)} WITH (FORCE)`);
      } finally {
        await server.end();
      }
    },
  };
}

export const testKek = (): Kek => ({ activeKeyId: "test", keys: new Map([["test", randomBytes(32)]]) });

/** The associated data the tests seal secrets with; the webhooks package chooses its own. */
export const secretAad = (eventCallbackId: string) => `event-callback:${eventCallbackId}`;

export async function register(
  ctx: Pick<WebhookTestContext, "callbacks">,
  kek: Kek,
  input: { projectId: string; eventType: EventType; callbackUrl?: string; secret?: string },
): Promise<EventCallbackRecord> {
  const secret = input.secret ?? `whsec_${randomBytes(32).toString("base64")}`;
  return ctx.callbacks.create({
    projectId: input.projectId,
    eventType: input.eventType,
    callbackUrl: input.callbackUrl ?? "https://receiver.example/hooks",
    sealSecret: (id) => seal(kek, Buffer.from(secret, "utf8"), secretAad(id)),
  });
}
