import { userInfo } from "node:os";
import { createAuditLogReader, recordAudit, type AuditDatabase, type AuditEntry, type AuditLogReader } from "@relay/db";

/** What the commands write to and read from the audit log; every entry they write names the operator. */
export interface CliAudit {
  /** Records an action of the operator running this command. */
  record: (entry: Omit<AuditEntry, "actor">) => Promise<void>;
  list: AuditLogReader["list"];
}

/** The operator's name: RELAY_OPERATOR, else the OS user running the CLI (docs/audit.md). */
export function operatorName(configured: string | undefined): string {
  if (configured) return configured;
  try {
    return userInfo().username || "unknown";
  } catch {
    return "unknown";
  }
}

export function createCliAudit(db: AuditDatabase, operator: string): CliAudit {
  const reader = createAuditLogReader(db);
  return {
    record: (entry) => recordAudit(db, { ...entry, actor: { type: "operator", id: operator } }),
    list: reader.list,
  };
}
