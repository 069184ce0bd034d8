import type { Database } from "../client";

export type SignatureDatabase = Pick<Database, "signature">;

export type SignatureStatus = "PENDING" | "SIGNED";

export interface SignatureRecord {
  id: string;
  projectId: string;
  walletId: string;
  message: Uint8Array;
  status: SignatureStatus;
  signature: string | null;
  createdAt: Date;
  signedAt: Date | null;
}

export interface SignatureWithSigner extends SignatureRecord {
  signerAddress: string;
}

const withSigner = { wallet: { select: { address: true } } } as const;

type RowWithWallet = SignatureRecord & { wallet: { address: string } };
const flatten = ({ wallet, ...row }: RowWithWallet): SignatureWithSigner => ({ ...row, signerAddress: wallet.address });

export function createSignatureRepository(db: SignatureDatabase) {
  return {
    /**
     * Inserts a PENDING record unless one with this id exists; returns whether it inserted. The
     * primary key decides between concurrent requests with the same signatureId.
     */
    insertPending: async (input: { id: string; projectId: string; walletId: string; message: Uint8Array }) => {
      const { count } = await db.signature.createMany({
        data: [{ ...input, message: new Uint8Array(input.message) }],
        skipDuplicates: true,
      });
      return count === 1;
    },
    findById: async (id: string): Promise<SignatureWithSigner | null> => {
      const row = await db.signature.findUnique({ where: { id }, include: withSigner });
      return row ? flatten(row) : null;
    },
    /** What the signing worker needs: the exact bytes and the wallet. */
    findForSigning: (id: string) =>
      db.signature.findUnique({ where: { id }, select: { status: true, message: true, signature: true, walletId: true } }),
    /** PENDING → SIGNED; false when the record is gone or already signed. */
    markSigned: async (id: string, signature: string): Promise<boolean> => {
      const { count } = await db.signature.updateMany({
        where: { id, status: "PENDING" },
        data: { status: "SIGNED", signature, signedAt: new Date() },
      });
      return count === 1;
    },
    /** Removes a request that could not be signed, so nothing half-written remains. */
    deletePending: async (id: string): Promise<boolean> => {
      const { count } = await db.signature.deleteMany({ where: { id, status: "PENDING" } });
      return count === 1;
    },
    deletePendingOlderThan: async (cutoff: Date): Promise<number> => {
      const { count } = await db.signature.deleteMany({ where: { status: "PENDING", createdAt: { lt: cutoff } } });
      return count;
    },
  };
}

export type SignatureRepository = ReturnType<typeof createSignatureRepository>;
