import type { Database } from "../client";

export type ApiKeyDatabase = Pick<Database, "apiKey">;

export interface ApiKeyRecord {
  id: string;
  projectId: string;
  name: string;
  secretHash: Uint8Array;
  createdAt: Date;
  revokedAt: Date | null;
}

export function createApiKeyRepository(db: ApiKeyDatabase) {
  return {
    create: (input: { id: string; projectId: string; name: string; secretHash: Uint8Array }): Promise<ApiKeyRecord> =>
      db.apiKey.create({ data: { ...input, secretHash: new Uint8Array(input.secretHash) } }),
    findById: (id: string): Promise<ApiKeyRecord | null> => db.apiKey.findUnique({ where: { id } }),
    listByProject: (projectId: string): Promise<ApiKeyRecord[]> =>
      db.apiKey.findMany({ where: { projectId }, orderBy: { createdAt: "asc" } }),
    /** Returns false when the key does not exist or was already revoked. */
    revoke: async (id: string): Promise<boolean> => {
      const { count } = await db.apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
      return count === 1;
    },
  };
}

export type ApiKeyRepository = ReturnType<typeof createApiKeyRepository>;
