import type { Database } from "../client";
import type { AuditAction, AuditActor, AuditActorType } from "./audit-actions";

/** What recordAudit needs: the Prisma client, or a transaction's client to commit with the change. */
export type AuditDatabase = Pick<Database, "auditLog">;

/** Plain JSON, for `details`. */
type AuditValue = string | number | boolean | null | AuditDetails | readonly AuditValue[];
export type AuditDetails = { [key: string]: AuditValue };

export interface AuditEntry {
  actor: AuditActor;
  action: AuditAction;
  projectId?: string | null;
  walletAddress?: string | null;
  /** The id of what the action was on: a signature, a transaction, an API key, a wallet. */
  subject?: string | null;
  /** More about the action. Never a key, token or secret: entries are read by anyone auditing. */
  details?: AuditDetails;
}

export interface AuditRecord {
  id: bigint;
  at: Date;
  actorType: AuditActorType;
  actorId: string | null;
  action: string;
  projectId: string | null;
  walletAddress: string | null;
  subject: string | null;
  details: unknown;
}

/**
 * Adds one entry to the audit log. Pass the client of the database transaction that makes the
 * change, where there is one, so that the change and its entry commit together.
 */
export async function recordAudit(db: AuditDatabase, entry: AuditEntry): Promise<void> {
  await db.auditLog.create({ data: toRow(entry) });
}

const toRow = (entry: AuditEntry) => ({
  actorType: entry.actor.type,
  actorId: entry.actor.type === "relay" ? "relay" : entry.actor.id,
  action: entry.action,
  projectId: entry.projectId ?? null,
  walletAddress: entry.walletAddress ?? null,
  subject: entry.subject ?? null,
  details: entry.details ?? {},
});

/**
 * The entry of a wallet's creation by a job that may run again after the wallet committed (a
 * retried or stalled createWallet job): the log holds one wallet.created entry per wallet (a unique
 * index, audit_log_wallet_created_key), and a second one is dropped, even from a run at the same time.
 */
export async function recordWalletCreated(db: AuditDatabase, entry: Omit<AuditEntry, "action"> & { subject: string }): Promise<void> {
  await db.auditLog.createMany({ data: [toRow({ ...entry, action: "wallet.created" })], skipDuplicates: true });
}

export interface AuditQuery {
  projectId?: string;
  /** An API key id, an operator's name, or "relay". */
  actorId?: string;
  /** Exact actions, or prefixes ending in "." (`wallet.`); any of them matches. */
  actions?: readonly string[];
  walletAddress?: string;
  since?: Date;
  until?: Date;
  limit: number;
}

/** The audit log's reads, newest first, by the filters the CLI offers (each has an index). */
export function createAuditLogReader(db: AuditDatabase) {
  return {
    list: async (query: AuditQuery): Promise<AuditRecord[]> => {
      const actions = query.actions ?? [];
      const rows = await db.auditLog.findMany({
        where: {
          ...(query.projectId !== undefined ? { projectId: query.projectId } : {}),
          ...(query.actorId !== undefined ? { actorId: query.actorId } : {}),
          ...(query.walletAddress !== undefined ? { walletAddress: query.walletAddress } : {}),
          ...(query.since !== undefined || query.until !== undefined
            ? { at: { ...(query.since ? { gte: query.since } : {}), ...(query.until ? { lt: query.until } : {}) } }
            : {}),
          ...(actions.length > 0
            ? { OR: actions.map((a) => (a.endsWith(".") ? { action: { startsWith: a } } : { action: a })) }
            : {}),
        },
        orderBy: { id: "desc" },
        take: query.limit,
      });
      return rows.map((row) => ({ ...row, actorType: row.actorType as AuditActorType }));
    },
  };
}

export type AuditLogReader = ReturnType<typeof createAuditLogReader>;
