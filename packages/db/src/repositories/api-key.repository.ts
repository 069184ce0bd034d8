import type { Database } from "../client";

export type ApiKeyDatabase = Pick<Database, "apiKey">;

export interface ApiKeyRecord {
  id: string;
  projectId: string;
  name: string;
  secretHash: Uint8Array;
  createdAt: Date;
  revokedAt: Date | null;
  /** What the key may do (docs/policies.md); every scope unless restricted. */
  scopes: string[];
  /** CIDR ranges it may be used from; empty: any address. */
  allowedCidrs: string[];
}

/** Prisma maps a NULL list column to null; a key without an allowlist reads as an empty one. */
const toRecord = <T extends { scopes: string[] | null; allowedCidrs: string[] | null }>(row: T) => ({ ...row, scopes: row.scopes ?? [], allowedCidrs: row.allowedCidrs ?? [] });

export function createApiKeyRepository(db: ApiKeyDatabase) {
  return {
    /** Without `scopes`: every scope; without `allowedCidrs`: any address. */
    create: async (input: { id: string; projectId: string; name: string; secretHash: Uint8Array; scopes?: readonly string[]; allowedCidrs?: readonly string[] }): Promise<ApiKeyRecord> =>
      toRecord(
        await db.apiKey.create({
          data: {
            id: input.id,
            projectId: input.projectId,
            name: input.name,
            secretHash: new Uint8Array(input.secretHash),
            ...(input.scopes ? { scopes: [...input.scopes] } : {}),
            ...(input.allowedCidrs ? { allowedCidrs: [...input.allowedCidrs] } : {}),
          },
        }),
      ),
    findById: async (id: string): Promise<ApiKeyRecord | null> => {
      const row = await db.apiKey.findUnique({ where: { id } });
      return row && toRecord(row);
    },
    listByProject: async (projectId: string): Promise<ApiKeyRecord[]> =>
      (await db.apiKey.findMany({ where: { projectId }, orderBy: { createdAt: "asc" } })).map(toRecord),
    /**
     * Changes what a key may do and where from (a field left out stays as it is). Every change of
     * a key's scopes or allowlist goes through here. Null when the key does not exist.
     */
    restrict: async (id: string, change: { scopes?: readonly string[]; allowedCidrs?: readonly string[] }): Promise<ApiKeyRecord | null> => {
      const { count } = await db.apiKey.updateMany({
        where: { id },
        data: { ...(change.scopes ? { scopes: [...change.scopes] } : {}), ...(change.allowedCidrs ? { allowedCidrs: [...change.allowedCidrs] } : {}) },
      });
      if (count === 0) return null;
      const row = await db.apiKey.findUnique({ where: { id } });
      return row && toRecord(row);
    },
    /** Returns false when the key does not exist or was already revoked. */
    revoke: async (id: string): Promise<boolean> => {
      const { count } = await db.apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
      return count === 1;
    },
  };
}

export type ApiKeyRepository = ReturnType<typeof createApiKeyRepository>;
