import { createBatcher, type BatcherOptions } from "@relay/core";
import type { Sql } from "../client";
import type { SignatureContent } from "./signature-content";

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

export interface SignatureRepositoryOptions {
  /**
   * Coalesce concurrent insertPending, findForSigning and markSigned calls into one statement per
   * batch (many requests at once in a gateway or a signing worker); without it, one statement each.
   */
  coalesce?: BatcherOptions;
}

export interface NewSignatureRequest {
  id: string;
  projectId: string;
  walletId: string;
  message: Uint8Array;
}

/** True for the first occurrence of each id only: a batch may hold one id twice. */
function firstOccurrences(ids: readonly string[], affected: Set<string>): boolean[] {
  const seen = new Set<string>();
  return ids.map((id) => {
    const first = !seen.has(id);
    seen.add(id);
    return first && affected.has(id);
  });
}

const bytes = (message: Uint8Array) => Buffer.from(message.buffer, message.byteOffset, message.byteLength);

export function createSignatureRepository(sql: Sql, options: SignatureRepositoryOptions = {}) {
  /** Inserts each request unless its id exists; per request, whether it inserted (the first of a repeated id only). */
  const insertManyPending = async (requests: readonly NewSignatureRequest[]): Promise<boolean[]> => {
    const result = await sql.query<{ id: string }>(
      {
        name: "signature.insertManyPending",
        text: `INSERT INTO signature (id, project_id, wallet_id, message)
               SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::bytea[])
               ON CONFLICT (id) DO NOTHING RETURNING id`,
      },
      [requests.map((r) => r.id), requests.map((r) => r.projectId), requests.map((r) => r.walletId), requests.map((r) => bytes(r.message))],
    );
    return firstOccurrences(
      requests.map((r) => r.id),
      new Set(result.rows.map((r) => r.id)),
    );
  };

  const findManyForSigning = async (ids: readonly string[]): Promise<(SigningInput | null)[]> => {
    const result = await sql.query<SigningInput & { id: string }>(
      {
        name: "signature.findManyForSigning",
        text: `SELECT id, status, message, signature, wallet_id AS "walletId" FROM signature WHERE id = ANY($1::uuid[])`,
      },
      [ids],
    );
    const byId = new Map(result.rows.map(({ id, ...row }) => [id, row]));
    return ids.map((id) => byId.get(id) ?? null);
  };

  /**
   * PENDING → SIGNED for each, only while the record still holds the content that was signed;
   * per item, whether it moved (false when gone, already signed, replaced, or repeated).
   */
  const markManySigned = async (items: readonly ({ id: string; signature: string } & SignatureContent)[]): Promise<boolean[]> => {
    const result = await sql.query<{ id: string }>(
      {
        name: "signature.markManySigned",
        text: `UPDATE signature s SET status = 'SIGNED', signature = i.signature, signed_at = now()
                 FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::bytea[]) AS i(id, signature, wallet_id, message)
                WHERE s.id = i.id AND s.status = 'PENDING' AND s.wallet_id = i.wallet_id AND s.message = i.message
               RETURNING s.id`,
      },
      [items.map((i) => i.id), items.map((i) => i.signature), items.map((i) => i.walletId), items.map((i) => bytes(i.message))],
    );
    return firstOccurrences(
      items.map((i) => i.id),
      new Set(result.rows.map((r) => r.id)),
    );
  };

  const single = <K, V>(many: (keys: readonly K[]) => Promise<V[]>, fallback: V) =>
    options.coalesce ? createBatcher(many, options.coalesce) : async (key: K) => (await many([key]))[0] ?? fallback;
  const insertOne = single(insertManyPending, false);
  const findOne = single(findManyForSigning, null);
  const markOne = single(markManySigned, false);

  return {
    /**
     * Inserts a PENDING record unless one with this id exists; returns whether it inserted. The
     * primary key decides between concurrent requests with the same signatureId.
     */
    insertPending: (input: NewSignatureRequest): Promise<boolean> => insertOne(input),
    findById: async (id: string): Promise<SignatureWithSigner | null> => {
      const result = await sql.query<SignatureWithSigner>({ name: "signature.findById", text: SELECT_WITH_SIGNER }, [id]);
      return result.rows[0] ?? null;
    },
    /** What the signing worker needs: the exact bytes and the wallet. */
    findForSigning: (id: string): Promise<SigningInput | null> => findOne(id),
    /**
     * PENDING → SIGNED with the signature of `signed` (signature-content.ts); false when the record
     * is gone, already signed, or now holds another request's content under the same id.
     */
    markSigned: (id: string, signature: string, signed: SignatureContent): Promise<boolean> => markOne({ id, signature, walletId: signed.walletId, message: signed.message }),
    /**
     * Removes a request that could not be signed, so nothing half-written remains: the PENDING
     * record under `id` with this content only, never a newer request's that took the id since.
     */
    deletePending: async (id: string, content: SignatureContent): Promise<boolean> => {
      const result = await sql.query(`DELETE FROM signature WHERE id = $1 AND status = 'PENDING' AND wallet_id = $2 AND message = $3`, [
        id,
        content.walletId,
        bytes(content.message),
      ]);
      return result.rowCount === 1;
    },
    deletePendingOlderThan: async (cutoff: Date): Promise<number> => {
      const result = await sql.query(`DELETE FROM signature WHERE status = 'PENDING' AND created_at < $1`, [cutoff]);
      return result.rowCount ?? 0;
    },
  };
}

export type SignatureRepository = ReturnType<typeof createSignatureRepository>;
