import { userInfo } from "node:os";
import {
  changeWithAudit,
  createApiKeyRepository,
  createAuditLogReader,
  createPolicyRepository,
  createProjectRepository,
  createWalletRepository,
  recordAudit,
  type ApiKeyRepository,
  type AuditEntry,
  type AuditLogReader,
  type Database,
  type PolicyRepository,
  type ProjectRepository,
  type WalletRepository,
} from "@relay/db";

/** An entry of the operator running this command: the actor is filled in. */
export type OperatorEntry = Omit<AuditEntry, "actor">;

/** The repositories a change may use, on the database transaction its entry commits in. */
export interface AuditedRepositories {
  projects: ProjectRepository;
  apiKeys: ApiKeyRepository;
  wallets: WalletRepository;
  policies: PolicyRepository;
}

/** What the commands write to and read from the audit log; every entry they write names the operator. */
export interface CliAudit {
  /** Records an action of the operator on its own (one that is not a database change, or is one already made). */
  record: (entry: OperatorEntry) => Promise<void>;
  /**
   * Makes a change and records its entry in one database transaction (null: nothing changed,
   * nothing recorded).
   */
  change: <T>(run: (repositories: AuditedRepositories) => Promise<T>, entryOf: (result: T) => OperatorEntry | null) => Promise<T>;
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

export function createCliAudit(db: Database, operator: string): CliAudit {
  const actor = { type: "operator", id: operator } as const;
  return {
    record: (entry) => recordAudit(db, { ...entry, actor }),
    change: (run, entryOf) =>
      changeWithAudit(
        db,
        (tx) => run({ projects: createProjectRepository(tx), apiKeys: createApiKeyRepository(tx), wallets: createWalletRepository(tx), policies: createPolicyRepository(tx) }),
        (result) => {
          const entry = entryOf(result);
          return entry && { ...entry, actor };
        },
      ),
    list: createAuditLogReader(db).list,
  };
}
