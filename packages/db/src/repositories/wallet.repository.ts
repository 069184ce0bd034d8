import { randomUUID } from "node:crypto";
import type { Database } from "../client";

export type WalletDatabase = Pick<Database, "wallet">;

export interface WalletRecord {
  id: string;
  projectId: string;
  address: string;
  createdAt: Date;
}

export interface WalletWithKey extends WalletRecord {
  encryptedKey: string;
}

const publicFields = { id: true, projectId: true, address: true, createdAt: true } as const;

export function createWalletRepository(db: WalletDatabase) {
  return {
    /**
     * Stores a wallet whose key is encrypted with the wallet's own id as associated data, so the
     * id is chosen here before the key is sealed.
     */
    create: (input: {
      projectId: string;
      address: string;
      sealKey: (walletId: string) => string;
    }): Promise<WalletRecord> => {
      const id = randomUUID();
      return db.wallet.create({
        data: { id, projectId: input.projectId, address: input.address, encryptedKey: input.sealKey(id) },
        select: publicFields,
      });
    },
    listByProject: (projectId: string): Promise<WalletRecord[]> =>
      db.wallet.findMany({ where: { projectId }, orderBy: { createdAt: "asc" }, select: publicFields }),
    /** `address` must be checksummed (ethers.getAddress). */
    findByAddress: (address: string): Promise<WalletRecord | null> =>
      db.wallet.findUnique({ where: { address }, select: publicFields }),
    findWithKey: (id: string): Promise<WalletWithKey | null> => db.wallet.findUnique({ where: { id } }),
    /** Every wallet with its sealed key, in pages by id (re-sealing under a new key-encryption key). */
    listWithKeys: (page: { after?: string; limit: number }): Promise<WalletWithKey[]> =>
      db.wallet.findMany({ where: page.after ? { id: { gt: page.after } } : {}, orderBy: { id: "asc" }, take: page.limit }),
    /**
     * Replaces the sealed key, only if it is still `previous` (a concurrent re-seal or change
     * wins); whether it was replaced.
     */
    replaceKey: async (id: string, previous: string, next: string): Promise<boolean> =>
      (await db.wallet.updateMany({ where: { id, encryptedKey: previous }, data: { encryptedKey: next } })).count === 1,
    /** Every wallet's address, in pages (for scheduled checks over all wallets). */
    listAddresses: async (page: { after?: string; limit: number }): Promise<string[]> =>
      (
        await db.wallet.findMany({
          where: page.after ? { address: { gt: page.after } } : {},
          orderBy: { address: "asc" },
          take: page.limit,
          select: { address: true },
        })
      ).map((w) => w.address),
  };
}

export type WalletRepository = ReturnType<typeof createWalletRepository>;
