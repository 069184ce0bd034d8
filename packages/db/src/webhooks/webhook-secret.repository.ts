import type { Database } from "../client";

/** A registration's sealed secrets, as a re-seal reads and writes them. */
export interface SealedWebhookSecrets {
  id: string;
  encryptedSecret: string;
  previousEncryptedSecret: string | null;
  previousSecretExpiresAt: Date | null;
}

/**
 * Every registration's sealed secrets, for re-sealing them under a new webhook key (`relay
 * webhooks reseal`, docs/operations.md). Disabled and deleted registrations too: their rows keep
 * their secrets, and a key that leaked must not open any of them.
 */
export function createWebhookSecretRepository(db: Pick<Database, "eventCallback">) {
  return {
    /** A page of registrations in id order, after `after`. */
    list: (page: { after?: string; limit: number }): Promise<SealedWebhookSecrets[]> =>
      db.eventCallback.findMany({
        where: page.after ? { id: { gt: page.after } } : {},
        orderBy: { id: "asc" },
        take: page.limit,
        select: { id: true, encryptedSecret: true, previousEncryptedSecret: true, previousSecretExpiresAt: true },
      }),
    /**
     * Writes the re-sealed values only while the row still holds what was read (a rotation or the
     * retired-secret clearing may have changed it meanwhile); whether it wrote.
     */
    replace: async (read: SealedWebhookSecrets, next: { encryptedSecret: string; previousEncryptedSecret: string | null }): Promise<boolean> =>
      (
        await db.eventCallback.updateMany({
          where: { id: read.id, encryptedSecret: read.encryptedSecret, previousEncryptedSecret: read.previousEncryptedSecret },
          data: next,
        })
      ).count === 1,
  };
}

export type WebhookSecretRepository = ReturnType<typeof createWebhookSecretRepository>;
