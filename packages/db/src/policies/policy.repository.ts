import type { Database } from "../client";
import type { JsonValue } from "../transactions/transaction-record";

export type PolicyDatabase = Pick<Database, "projectPolicy">;

export interface PolicyRecord {
  projectId: string;
  /** The document as validated by @relay/policies' schema before it was written. */
  policy: JsonValue;
  updatedAt: Date;
}

const toRecord = (row: { projectId: string; policy: unknown; updatedAt: Date }): PolicyRecord => ({ projectId: row.projectId, policy: row.policy as JsonValue, updatedAt: row.updatedAt });

/**
 * Projects' policy documents (docs/policies.md), one per project. Every write goes through `set`
 * or `clear`: the places to record a change. The document is validated by the caller (the
 * policies package's schema); this stores and reads it.
 */
export function createPolicyRepository(db: PolicyDatabase) {
  return {
    /** The project's policy; null when it has none (no limits). */
    get: async (projectId: string): Promise<PolicyRecord | null> => {
      const row = await db.projectPolicy.findUnique({ where: { projectId } });
      return row && toRecord(row);
    },
    /** Replaces the project's whole policy document. */
    set: async (projectId: string, policy: JsonValue): Promise<PolicyRecord> => {
      const data = { policy: policy as NonNullable<JsonValue>, updatedAt: new Date() };
      return toRecord(await db.projectPolicy.upsert({ where: { projectId }, create: { projectId, ...data }, update: data }));
    },
    /** Removes the project's policy (no limits); false when it had none. */
    clear: async (projectId: string): Promise<boolean> => (await db.projectPolicy.deleteMany({ where: { projectId } })).count === 1,
  };
}

export type PolicyRepository = ReturnType<typeof createPolicyRepository>;
