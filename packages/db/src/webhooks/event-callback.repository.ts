import { randomUUID } from "node:crypto";
import type { Database, Sql } from "../client";
import { DISABLE_CALLBACK, RECENT_STATS } from "./webhook.sql";
import {
  toStat,
  type EventCallbackRecord,
  type EventCallbackStatRecord,
  type EventCallbackWithSecret,
  type EventCallbackWithStats,
  type EventType,
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
  sql: Sql;
  db: EventCallbackDatabase;
}

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

  return {
    create: (input: {
      projectId: string;
      callbackUrl: string;
      eventType: EventType;
      sealSecret: (eventCallbackId: string) => string;
    }): Promise<EventCallbackRecord> => {
      const id = randomUUID();
      return db.eventCallback.create({
        data: { id, projectId: input.projectId, callbackUrl: input.callbackUrl, eventType: input.eventType, encryptedSecret: input.sealSecret(id) },
        select: publicFields,
      });
    },

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

    /** Disables the registration as deleted by the project; false when unknown or already deleted. */
    delete: (id: string): Promise<boolean> => disable(id, DELETED_REASON, true),

    /** Rotates the secret of an active registration; false when it is unknown or disabled. */
    replaceSecret: async (id: string, sealSecret: (eventCallbackId: string) => string): Promise<boolean> => {
      const { count } = await db.eventCallback.updateMany({ where: { id, disabledAt: null }, data: { encryptedSecret: sealSecret(id) } });
      return count === 1;
    },
  };
}

export type EventCallbackRepository = ReturnType<typeof createEventCallbackRepository>;
