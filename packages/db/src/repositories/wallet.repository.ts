import { randomUUID } from "node:crypto";
import type { CustodyBackendName } from "@relay/core";
import type { Database } from "../client";

export type WalletDatabase = Pick<Database, "wallet">;

export type WalletType = "BROADCAST" | "SIGNING" | "CLUSTER_MANAGER";

export interface WalletRecord {
  id: string;
  projectId: string;
  address: string;
  createdAt: Date;
  /** False: never chosen for a new send or signature; what it has in flight finishes. */
  isActive: boolean;
  /** Set once, for good: the wallet is never used again, and never deleted. */
  retiredAt: Date | null;
  walletType: WalletType;
  /** Where the wallet's key is kept (docs/custody.md). */
  backend: CustodyBackendName;
  updatedAt: Date;
}

export interface WalletWithKey extends WalletRecord {
  /** The sealed key; null unless LOCAL. */
  encryptedKey: string | null;
  /** The key's name in its backend (HSM: CKA_ID hex, KMS: ARN); null for LOCAL. */
  keyRef: string | null;
}

/** A LOCAL wallet's sealed key, or where an HSM or KMS keeps it. */
export type StoredKey = { sealKey: (walletId: string) => string } | { backend: "HSM" | "KMS"; keyRef: string };

/** What became of a change of a wallet's state (activate, deactivate, retire). */
export type WalletChange =
  | { kind: "changed"; wallet: WalletRecord }
  /** No wallet of the project has this address. */
  | { kind: "not-found" }
  /** The wallet is retired, and a retired wallet is never activated again. */
  | { kind: "retired"; wallet: WalletRecord };

const publicFields = {
  id: true,
  projectId: true,
  address: true,
  createdAt: true,
  isActive: true,
  retiredAt: true,
  walletType: true,
  backend: true,
  updatedAt: true,
} as const;

/** A wallet that may be chosen for a new send or signature. */
export const isUsable = (w: Pick<WalletRecord, "isActive" | "retiredAt">): boolean => w.isActive && w.retiredAt === null;

export function createWalletRepository(db: WalletDatabase) {
  const findInProject = (projectId: string, address: string) => db.wallet.findFirst({ where: { projectId, address }, select: publicFields });

  /** Applies `data` to the project's wallet unless it is retired; what became of it. */
  const change = async (projectId: string, address: string, data: { isActive: boolean; retiredAt?: Date }): Promise<WalletChange> => {
    // One statement: a concurrent retire wins over an activation, never the other way round.
    const { count } = await db.wallet.updateMany({ where: { projectId, address, retiredAt: null }, data });
    const wallet = await findInProject(projectId, address);
    if (!wallet) return { kind: "not-found" };
    return count === 1 ? { kind: "changed", wallet } : { kind: "retired", wallet };
  };

  return {
    /**
     * Stores a wallet whose key is encrypted with the wallet's own id as associated data, so the
     * id is chosen before the key is sealed: here, or by the caller (`id`: a job's, so that a
     * retried job finds the wallet it created).
     */
    create: (input: { id?: string; projectId: string; address: string; walletType?: WalletType } & StoredKey): Promise<WalletRecord> => {
      const id = input.id ?? randomUUID();
      const key = "keyRef" in input ? { backend: input.backend, keyRef: input.keyRef } : { backend: "LOCAL" as const, encryptedKey: input.sealKey(id) };
      return db.wallet.create({
        data: { id, projectId: input.projectId, address: input.address, ...key, walletType: input.walletType ?? "BROADCAST" },
        select: publicFields,
      });
    },
    /** Every wallet of the project, retired and inactive ones included, oldest first. */
    listByProject: (projectId: string): Promise<WalletRecord[]> =>
      db.wallet.findMany({ where: { projectId }, orderBy: { createdAt: "asc" }, select: publicFields }),
    /** `address` must be checksummed (ethers.getAddress). */
    findByAddress: (address: string): Promise<WalletRecord | null> =>
      db.wallet.findUnique({ where: { address }, select: publicFields }),
    findById: (id: string): Promise<WalletRecord | null> => db.wallet.findUnique({ where: { id }, select: publicFields }),
    findWithKey: (id: string): Promise<WalletWithKey | null> => db.wallet.findUnique({ where: { id } }),
    /** Every LOCAL wallet with its sealed key, in pages by id (re-sealing under a new key-encryption key). */
    listWithKeys: async (page: { after?: string; limit: number }): Promise<Array<WalletWithKey & { encryptedKey: string }>> =>
      (await db.wallet.findMany({ where: { backend: "LOCAL", ...(page.after ? { id: { gt: page.after } } : {}) }, orderBy: { id: "asc" }, take: page.limit })).filter(
        (w): w is typeof w & { encryptedKey: string } => w.encryptedKey !== null,
      ),
    /**
     * Replaces the sealed key, only if it is still `previous` (a concurrent re-seal or change
     * wins); whether it was replaced.
     */
    replaceKey: async (id: string, previous: string, next: string): Promise<boolean> =>
      (await db.wallet.updateMany({ where: { id, encryptedKey: previous }, data: { encryptedKey: next } })).count === 1,
    /**
     * Activates or deactivates the project's wallet at `address` (checksummed). A retired wallet
     * stays as it is (`retired`), whatever was asked. The HTTP API and the CLI both change wallets here.
     */
    setActive: (projectId: string, address: string, isActive: boolean): Promise<WalletChange> => change(projectId, address, { isActive }),
    /**
     * Retires the project's wallet at `address` for good: inactive, never chosen again, never
     * deleted (its sealed key stays, so its funds can be recovered). Retiring a retired wallet
     * answers `retired` and changes nothing.
     */
    retire: (projectId: string, address: string, now: Date = new Date()): Promise<WalletChange> => change(projectId, address, { isActive: false, retiredAt: now }),
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
