import { AppError } from "@relay/core";
import type { SignatureRepository } from "@relay/db";

/** How often the insert is tried again when the record it conflicted with is gone by the time it is read. */
const MAX_TRIES = 3;

const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b) === 0;

/** `waitedMs`: how long the earlier request still PENDING has waited, in the database's time. */
export type Claim = { kind: "new" } | { kind: "signed"; signature: string } | { kind: "pending"; waitedMs: number };

/** The insert got no answer (Postgres unreachable): its record may exist, so the caller removes it later. */
export class InsertUnanswered extends Error {
  constructor(readonly reason: unknown) {
    super("the insert of the signature request got no answer");
    this.name = "InsertUnanswered";
  }
}

const insert = async (signatures: Pick<SignatureRepository, "insertPending">, request: Parameters<SignatureRepository["insertPending"]>[0]) => {
  try {
    return await signatures.insertPending(request);
  } catch (e) {
    throw new InsertUnanswered(e);
  }
};

/**
 * Stores a personal-sign request under its project's signatureId, or finds the same request stored
 * before (a client's retry): "new" when this call stored it, "signed" with the signature when an
 * earlier one finished, "pending" when an earlier one is still waiting. The id held in the project
 * by another signer or message is the contract's 400; another project's records under the same
 * id are never looked at (a signatureId is unique per project). A record that conflicted but is
 * gone when read (an earlier try removed it as it gave up, or its clean-up ran) is not "used for
 * another": the insert is tried again, which is what the client's retry asked for.
 */
export async function claimSignatureId(
  signatures: Pick<SignatureRepository, "insertPending" | "findById">,
  request: { id: string; projectId: string; walletId: string; message: Uint8Array; apiKeyId?: string | null },
): Promise<Claim> {
  for (let tries = 1; ; tries++) {
    if (await insert(signatures, request)) return { kind: "new" };
    const existing = await signatures.findById(request.projectId, request.id);
    if (existing) {
      if (existing.walletId !== request.walletId || !sameBytes(existing.message, request.message)) {
        throw new AppError("SIGNATURE_ERROR", `signatureId ${request.id} was already used for another signer or message; omit it or send a new UUID`);
      }
      if (existing.status === "SIGNED" && existing.signature) return { kind: "signed", signature: existing.signature };
      return { kind: "pending", waitedMs: Math.max(0, existing.readAt.getTime() - existing.createdAt.getTime()) };
    }
    if (tries >= MAX_TRIES) {
      throw new AppError("INTERNAL", `signatureId ${request.id} is being stored and removed by other requests at the same time; retry with the same signatureId`, { retryable: true });
    }
  }
}
