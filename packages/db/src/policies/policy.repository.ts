import type { Sql } from "../client";
import type { JsonValue } from "../transactions/transaction-record";

export interface PolicyRecord {
  projectId: string;
  /** The document as validated by @relay/policies' schema before it was written. */
  policy: JsonValue;
  updatedAt: Date;
}

/**
 * Projects' policy documents (docs/policies.md), one per project. Every write goes through `set`
 * or `clear`: the places to record a change. The document is validated by the caller (the
 * policies package's schema); this stores and reads it.
 */
export function createPolicyRepository(sql: Sql) {
  return {
    /** The project's policy; null when it has none (no limits). */
    get: async (projectId: string): Promise<PolicyRecord | null> => {
      const { rows } = await sql.query<PolicyRecord>(
        { name: "policy.get", text: `SELECT project_id AS "projectId", policy, updated_at AS "updatedAt" FROM project_policy WHERE project_id = $1` },
        [projectId],
      );
      return rows[0] ?? null;
    },
    /** Replaces the project's whole policy document. */
    set: async (projectId: string, policy: JsonValue): Promise<PolicyRecord> => {
      const { rows } = await sql.query<PolicyRecord>(
        `INSERT INTO project_policy (project_id, policy, updated_at) VALUES ($1, $2::jsonb, now())
         ON CONFLICT (project_id) DO UPDATE SET policy = EXCLUDED.policy, updated_at = EXCLUDED.updated_at
         RETURNING project_id AS "projectId", policy, updated_at AS "updatedAt"`,
        [projectId, JSON.stringify(policy)],
      );
      return rows[0]!;
    },
    /** Removes the project's policy (no limits); false when it had none. */
    clear: async (projectId: string): Promise<boolean> => (await sql.query(`DELETE FROM project_policy WHERE project_id = $1`, [projectId])).rowCount === 1,
  };
}

export type PolicyRepository = ReturnType<typeof createPolicyRepository>;
