import type { Sql } from "../client";

/**
 * Signature records, in hand-written SQL: personal_sign is the hottest path of the service and
 * these statements run on every request. Measured here, pg costs 20-35 µs of CPU per query
 * against 120-150 µs through Prisma's query compiler (docs/benchmarks.md). The hot statements are
 * named, so each connection parses and plans them once.
 */

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

export interface SigningInput {
  status: SignatureStatus;
  message: Uint8Array;
  signature: string | null;
  walletId: string;
}

const SELECT_WITH_SIGNER = `
  SELECT s.id, s.project_id AS "projectId", s.wallet_id AS "walletId", s.message, s.status, s.signature,
         s.created_at AS "createdAt", s.signed_at AS "signedAt", w.address AS "signerAddress"
    FROM signature s JOIN wallet w ON w.id = s.wallet_id
   WHERE s.id = $1`;

export function createSignatureRepository(sql: Sql) {
  return {
    /**
     * Inserts a PENDING record unless one with this id exists; returns whether it inserted. The
     * primary key decides between concurrent requests with the same signatureId.
     */
    insertPending: async (input: { id: string; projectId: string; walletId: string; message: Uint8Array }): Promise<boolean> => {
      const result = await sql.query(
        {
          name: "signature.insertPending",
          text: `INSERT INTO signature (id, project_id, wallet_id, message) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING`,
        },
        [input.id, input.projectId, input.walletId, Buffer.from(input.message.buffer, input.message.byteOffset, input.message.byteLength)],
      );
      return result.rowCount === 1;
    },
    findById: async (id: string): Promise<SignatureWithSigner | null> => {
      const result = await sql.query<SignatureWithSigner>({ name: "signature.findById", text: SELECT_WITH_SIGNER }, [id]);
      return result.rows[0] ?? null;
    },
    /** What the signing worker needs: the exact bytes and the wallet. */
    findForSigning: async (id: string): Promise<SigningInput | null> => {
      const result = await sql.query<SigningInput>(
        { name: "signature.findForSigning", text: `SELECT status, message, signature, wallet_id AS "walletId" FROM signature WHERE id = $1` },
        [id],
      );
      return result.rows[0] ?? null;
    },
    /** PENDING → SIGNED; false when the record is gone or already signed. */
    markSigned: async (id: string, signature: string): Promise<boolean> => {
      const result = await sql.query(
        {
          name: "signature.markSigned",
          text: `UPDATE signature SET status = 'SIGNED', signature = $2, signed_at = now() WHERE id = $1 AND status = 'PENDING'`,
        },
        [id, signature],
      );
      return result.rowCount === 1;
    },
    /** Removes a request that could not be signed, so nothing half-written remains. */
    deletePending: async (id: string): Promise<boolean> => {
      const result = await sql.query(`DELETE FROM signature WHERE id = $1 AND status = 'PENDING'`, [id]);
      return result.rowCount === 1;
    },
    deletePendingOlderThan: async (cutoff: Date): Promise<number> => {
      const result = await sql.query(`DELETE FROM signature WHERE status = 'PENDING' AND created_at < $1`, [cutoff]);
      return result.rowCount ?? 0;
    },
  };
}

export type SignatureRepository = ReturnType<typeof createSignatureRepository>;
