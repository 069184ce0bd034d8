import { randomUUID } from "node:crypto";
import { AppError } from "@relay/core";
import type { EventType } from "@relay/lifecycle";
import type { Database, SqlPool } from "../client";
import { inTransaction } from "../in-transaction";
import { createWebhookDeliveryRepository, type AttemptInput } from "./webhook-delivery.repository";
import { CREATE_CALLBACK, DISABLE_CALLBACK, LOCK_PROJECT, RECENT_STATS } from "./event-callback.sql";
import {
  toStat,
  type EventCallbackRecord,
  type EventCallbackStatRecord,
  type EventCallbackWithSecret,
  type EventCallbackWithStats,
  type SecretRotation,
  type StatRow,
} from "./webhook-records";

/**
 * Event callback registrations (docs/webhooks.md, "Records"). The secret is sealed by the caller
 * (the gateway holds the webhook key, this package never does) with the registration's id as
 * associated data, so the id is chosen here before the secret is sealed. A registration is never
 * deleted, only disabled: its deliveries and stats keep pointing at it.
 */

export type EventCallbackDatabase = Pick<Database, "eventCallback">;

export interface EventCallbackRepositoryDeps {
  /** A pool: a registration is created in a transaction of its own (the per-project limit). */
  sql: SqlPool;
  db: EventCallbackDatabase;
}

export interface NewEventCallback {
  projectId: string;
  callbackUrl: string;
  eventType: EventType;
  /** Seals the new secret with the registration's id (chosen here) as associated data. */
  sealSecret: (eventCallbackId: string) => string;
}

/** How often a rotation re-reads a registration whose secret another rotation changed meanwhile. */
const ROTATION_ATTEMPTS = 5;

/** The disabledReason of a registration the project deleted; listByProject leaves those out. */
export const DELETED_REASON = "deleted";

const publicFields = {
  id: true,
  projectId: true,
  callbackUrl: true,
  eventType: true,
  createdAt: true,
  disabledAt: true,
  disabledReason: true,
} as const;

export function createEventCallbackRepository({ sql, db }: EventCallbackRepositoryDeps) {
  const disable = async (id: string, reason: string, replaceReason: boolean): Promise<boolean> =>
    (await sql.query(DISABLE_CALLBACK, [id, reason, replaceReason])).rowCount === 1;

  const insert = async (input: NewEventCallback, maxActive: number | null): Promise<EventCallbackRecord | null> => {
    const id = randomUUID();
    return inTransaction(sql, async (client) => {
      await client.query(LOCK_PROJECT, [input.projectId]);
      const params = [id, input.projectId, input.callbackUrl, input.eventType, input.sealSecret(id), maxActive];
      const [created] = (await client.query<EventCallbackRecord>(CREATE_CALLBACK, params)).rows;
      return created ?? null;
    });
  };

  return {
    /** A new registration, whatever the project already has (the CLI, tests). */
    create: async (input: NewEventCallback): Promise<EventCallbackRecord> => (await insert(input, null))!,

    /**
     * A new registration, or null when the project already has `maxActive` active (not disabled)
     * ones. The project's row is locked while they are counted, so concurrent registrations cannot
     * both take the last place.
     */
    createWithin: (maxActive: number, input: NewEventCallback): Promise<EventCallbackRecord | null> => insert(input, maxActive),

    /**
     * The project's registrations that were not deleted (disabled ones included, with why),
     * oldest first, each with its `recentStats` most recent stats entries, newest first.
     */
    listByProject: async (projectId: string, options: { recentStats: number }): Promise<EventCallbackWithStats[]> => {
      const registrations = await db.eventCallback.findMany({
        where: { projectId, OR: [{ disabledReason: null }, { disabledReason: { not: DELETED_REASON } }] },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        select: publicFields,
      });
      const stats = new Map<string, EventCallbackStatRecord[]>(registrations.map((r) => [r.id, []]));
      if (registrations.length > 0 && options.recentStats > 0) {
        const result = await sql.query<StatRow>(RECENT_STATS, [registrations.map((r) => r.id), options.recentStats]);
        for (const row of result.rows) stats.get(row.eventCallbackId)?.push(toStat(row));
      }
      return registrations.map((r) => ({ ...r, stats: stats.get(r.id) ?? [] }));
    },

    findById: (id: string): Promise<EventCallbackRecord | null> => db.eventCallback.findUnique({ where: { id }, select: publicFields }),

    findWithSecret: (id: string): Promise<EventCallbackWithSecret | null> => db.eventCallback.findUnique({ where: { id } }),

    /**
     * Stops deliveries to the registration (a 410 from the receiver, say) and abandons its
     * PENDING ones. False when it is unknown or already disabled (the first reason stays).
     */
    disable: (id: string, reason: string): Promise<boolean> => disable(id, reason, false),

    /**
     * The receiver of delivery `deliveryId` answered 410 Gone: disables the registration as
     * `disable` does (its PENDING deliveries, this one among them, ABANDONED) and records that
     * attempt's stats entry, in one database transaction. Apart, a crash or a failed write between
     * the two left the registration disabled and the 410 without a stats entry: the job's retry
     * found the delivery ABANDONED and had nothing to record.
     */
    disableAsGone: (id: string, reason: string, deliveryId: string, attempt: AttemptInput): Promise<void> =>
      inTransaction(sql, async (client) => {
        await client.query(DISABLE_CALLBACK, [id, reason, false]);
        await createWebhookDeliveryRepository(client).recordAttempt(deliveryId, attempt);
      }),

    /** Disables the registration as deleted by the project; false when unknown or already deleted. */
    delete: (id: string): Promise<boolean> => disable(id, DELETED_REASON, true),

    /**
     * Rotates the secret of an active registration: `rotate` gets the registration as stored (its
     * sealed secrets included) and returns the new sealed secret and the retired one, if it is to
     * be kept. The write applies only while the row still holds the secret `rotate` saw: of two
     * concurrent rotations, the later runs `rotate` again on the earlier one's result, so it retires
     * the secret the earlier one handed out rather than one already replaced. Null when the
     * registration is unknown or disabled; else the registration as rotated.
     */
    rotateSecret: async (id: string, rotate: (current: EventCallbackWithSecret) => SecretRotation | Promise<SecretRotation>): Promise<EventCallbackWithSecret | null> => {
      for (let attempt = 1; ; attempt++) {
        const current = await db.eventCallback.findUnique({ where: { id } });
        if (!current || current.disabledAt) return null;
        const { encryptedSecret, previous } = await rotate(current);
        const data = { encryptedSecret, previousEncryptedSecret: previous?.encryptedSecret ?? null, previousSecretExpiresAt: previous?.expiresAt ?? null };
        const { count } = await db.eventCallback.updateMany({ where: { id, disabledAt: null, encryptedSecret: current.encryptedSecret }, data });
        if (count === 1) return { ...current, ...data };
        if (attempt >= ROTATION_ATTEMPTS) {
          throw new AppError("CONFLICT", `The secret of event callback ${id} is being rotated by other requests at the same time; try again`, { retryable: true });
        }
      }
    },

    /**
     * Erases the sealed secrets retired by rotations whose grace period ended by `now`: never
     * signed with again, they are not kept either (a database and key leak later must not yield
     * them). Returns how many registrations it cleared.
     */
    clearRetiredSecrets: async (now: Date): Promise<number> =>
      // Hand-written, as the webhook worker's other statements: through Prisma, every worker would
      // load and run Prisma's query compiler (about 0.4 s of CPU) at start-up for this one.
      (
        await sql.query(
          `UPDATE event_callback SET previous_encrypted_secret = NULL, previous_secret_expires_at = NULL
            WHERE previous_secret_expires_at <= $1`,
          [now],
        )
      ).rowCount ?? 0,
  };
}

export type EventCallbackRepository = ReturnType<typeof createEventCallbackRepository>;
