import { createBatcher, type BatcherOptions } from "@relay/core";
import type { Sql } from "../client";
import { TYPED_DATA_MARK, type SignatureContent, type SignatureKind } from "./signature-content";

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

/** A signature record's key: a signatureId is unique per project, not across projects. */
export interface SignatureKey {
  projectId: string;
  id: string;
}

export interface SignatureWithSigner extends SignatureRecord {
  signerAddress: string;
  /** The database's time when the record was read: with `createdAt`, how long it has waited. */
  readAt: Date;
}

export interface SigningInput {
  status: SignatureStatus;
  message: Uint8Array;
  signature: string | null;
  walletId: string;
}

const SELECT_WITH_SIGNER = `
  SELECT s.id, s.project_id AS "projectId", s.wallet_id AS "walletId", s.message, s.status, s.signature,
         s.created_at AS "createdAt", s.signed_at AS "signedAt", w.address AS "signerAddress", now() AS "readAt"
    FROM signature s JOIN wallet w ON w.id = s.wallet_id`;

/** A page of a project's signed records of one kind, newest first. */
export interface SignaturePageQuery {
  kind: SignatureKind;
  /** 0-based. */
  page: number;
  limit: number;
}

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
  /** The API key that asked (the audit log's actor when it is signed); null: none. */
  apiKeyId?: string | null;
}

const keyText = (key: SignatureKey) => `${key.projectId}/${key.id}`;

/** True for the first occurrence of each key only: a batch may hold one key twice. */
function firstOccurrences(keys: readonly SignatureKey[], affected: readonly SignatureKey[]): boolean[] {
  const hit = new Set(affected.map(keyText));
  const seen = new Set<string>();
  return keys.map((key) => {
    const text = keyText(key);
    const first = !seen.has(text);
    seen.add(text);
    return first && hit.has(text);
  });
}

const bytes = (message: Uint8Array) => Buffer.from(message.buffer, message.byteOffset, message.byteLength);

export function createSignatureRepository(sql: Sql, options: SignatureRepositoryOptions = {}) {
  /**
   * Inserts each request unless its key exists; per request, whether it inserted (the first of a
   * repeated key only). No conflict target: the primary key is the table's one unique constraint,
   * and the statement must also work on the table before its key became (project_id, id), which
   * gateways of this version meet during an upgrade (docs/operations.md).
   */
  const insertManyPending = async (requests: readonly NewSignatureRequest[]): Promise<boolean[]> => {
    const result = await sql.query<SignatureKey>(
      {
        name: "signature.insertManyPending",
        text: `INSERT INTO signature (id, project_id, wallet_id, message, api_key_id)
               SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::bytea[], $5::uuid[])
               ON CONFLICT DO NOTHING RETURNING project_id AS "projectId", id`,
      },
      [requests.map((r) => r.id), requests.map((r) => r.projectId), requests.map((r) => r.walletId), requests.map((r) => bytes(r.message)), requests.map((r) => r.apiKeyId ?? null)],
    );
    return firstOccurrences(requests, result.rows);
  };

  const findManyForSigning = async (keys: readonly SignatureKey[]): Promise<(SigningInput | null)[]> => {
    const result = await sql.query<SigningInput & SignatureKey>(
      {
        name: "signature.findManyForSigning",
        text: `SELECT s.project_id AS "projectId", s.id, s.status, s.message, s.signature, s.wallet_id AS "walletId"
                 FROM signature s JOIN unnest($1::uuid[], $2::uuid[]) AS k(project_id, id) ON s.project_id = k.project_id AND s.id = k.id`,
      },
      [keys.map((k) => k.projectId), keys.map((k) => k.id)],
    );
    const byKey = new Map(result.rows.map(({ projectId, id, ...row }) => [keyText({ projectId, id }), row]));
    return keys.map((key) => byKey.get(keyText(key)) ?? null);
  };

  /**
   * PENDING → SIGNED for each, only while the record still holds the content that was signed and,
   * for an item with `signWithinMs`, within that long of the record's insert; per item, whether it
   * moved (false when gone, already signed, replaced, too late, or repeated).
   */
  const markManySigned = async (items: readonly (SignatureKey & { signature: string; signWithinMs: number | undefined } & SignatureContent)[]): Promise<boolean[]> => {
    const result = await sql.query<SignatureKey>(
      {
        name: "signature.markManySigned",
        text: `UPDATE signature s SET status = 'SIGNED', signature = i.signature, signed_at = now()
                 FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::bytea[], $6::int[]) AS i(project_id, id, signature, wallet_id, message, within_ms)
                WHERE s.project_id = i.project_id AND s.id = i.id AND s.status = 'PENDING' AND s.wallet_id = i.wallet_id AND s.message = i.message
                  AND (i.within_ms IS NULL OR now() <= s.created_at + i.within_ms * interval '1 millisecond')
               RETURNING s.project_id AS "projectId", s.id`,
      },
      [
        items.map((i) => i.projectId),
        items.map((i) => i.id),
        items.map((i) => i.signature),
        items.map((i) => i.walletId),
        items.map((i) => bytes(i.message)),
        items.map((i) => i.signWithinMs ?? null),
      ],
    );
    return firstOccurrences(items, result.rows);
  };

  const single = <K, V>(many: (keys: readonly K[]) => Promise<V[]>, fallback: V) =>
    options.coalesce ? createBatcher(many, options.coalesce) : async (key: K) => (await many([key]))[0] ?? fallback;
  const insertOne = single(insertManyPending, false);
  const findOne = single(findManyForSigning, null);
  const markOne = single(markManySigned, false);

  return {
    /**
     * Inserts a PENDING record unless the project has one with this id; returns whether it
     * inserted. The primary key decides between concurrent requests with the same signatureId.
     */
    insertPending: (input: NewSignatureRequest): Promise<boolean> => insertOne(input),
    findById: async (projectId: string, id: string): Promise<SignatureWithSigner | null> => {
      const result = await sql.query<SignatureWithSigner>({ name: "signature.findById", text: `${SELECT_WITH_SIGNER} WHERE s.project_id = $1 AND s.id = $2` }, [
        projectId,
        id,
      ]);
      return result.rows[0] ?? null;
    },
    /**
     * A page of the project's SIGNED records of one kind (signature-content.ts: the message's
     * first byte), newest first. PENDING records are requests still waiting, not signatures.
     */
    listSigned: async (projectId: string, { kind, page, limit }: SignaturePageQuery): Promise<SignatureWithSigner[]> => {
      const result = await sql.query<SignatureWithSigner>(
        `${SELECT_WITH_SIGNER}
          WHERE s.project_id = $1 AND s.status = 'SIGNED' AND (substring(s.message from 1 for 1) = $2::bytea) = $3
          ORDER BY s.created_at DESC, s.id DESC LIMIT $4 OFFSET $5`,
        [projectId, Buffer.from([TYPED_DATA_MARK]), kind === "TYPED_DATA", limit, page * limit],
      );
      return result.rows;
    },
    /** What the signing worker needs: the exact bytes and the wallet. */
    findForSigning: (key: SignatureKey): Promise<SigningInput | null> => findOne(key),
    /**
     * The projects holding a record under each id. Only for signing jobs of gateways before
     * signatureIds were per project, which name no project: there, one project per id.
     */
    findProjectIds: async (ids: readonly string[]): Promise<Map<string, string[]>> => {
      const result = await sql.query<SignatureKey>(`SELECT project_id AS "projectId", id FROM signature WHERE id = ANY($1::uuid[])`, [ids]);
      const projects = new Map<string, string[]>();
      for (const { projectId, id } of result.rows) projects.set(id, [...(projects.get(id) ?? []), projectId]);
      return projects;
    },
    /**
     * PENDING → SIGNED with the signature of `signed` (signature-content.ts); false when the record
     * is gone, already signed, or now holds another request's content under the same key, or, with
     * `signWithinMs`, when more than that has passed since its insert (its gateway has answered).
     */
    markSigned: (key: SignatureKey, signature: string, signed: SignatureContent, signWithinMs?: number): Promise<boolean> =>
      markOne({ projectId: key.projectId, id: key.id, signature, walletId: signed.walletId, message: signed.message, signWithinMs }),
    /**
     * Removes a request that could not be signed, so nothing half-written remains: the PENDING
     * record under `key` with this content only, never a newer request's that took the key since.
     */
    deletePending: async (key: SignatureKey, content: SignatureContent): Promise<boolean> => {
      const result = await sql.query(`DELETE FROM signature WHERE project_id = $1 AND id = $2 AND status = 'PENDING' AND wallet_id = $3 AND message = $4`, [
        key.projectId,
        key.id,
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
