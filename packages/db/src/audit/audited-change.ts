import type { Database } from "../client";
import type { Prisma } from "../generated/client";
import { recordAudit, type AuditEntry } from "./audit-log.repository";

/** The client of one database transaction: build the repositories a change needs on it. */
export type AuditedTransaction = Prisma.TransactionClient;

/**
 * Runs `change` and records the entry `entryOf` makes of its result in one database transaction:
 * the change never commits without its entry, nor the entry without the change. `entryOf` answers
 * null when the change changed nothing (a key revoked already): then nothing is recorded.
 */
export async function changeWithAudit<T>(
  db: Pick<Database, "$transaction">,
  change: (tx: AuditedTransaction) => Promise<T>,
  entryOf: (result: T) => AuditEntry | null,
): Promise<T> {
  return db.$transaction(async (tx) => {
    const result = await change(tx);
    const entry = entryOf(result);
    if (entry) await recordAudit(tx, entry);
    return result;
  });
}
