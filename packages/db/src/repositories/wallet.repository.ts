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
