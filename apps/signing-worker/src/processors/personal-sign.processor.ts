import { isAppError, toError, type Logger } from "@relay/core";
import { messageDigest, sameContent, type SignatureContent, type SignatureRepository } from "@relay/db";
import type { Signer } from "@relay/custody";
import type { Processor } from "@relay/queue";

export interface PersonalSignDeps {
  signatures: Pick<SignatureRepository, "findForSigning" | "markSigned" | "findById">;
  signer: Pick<Signer, "signMessage">;
}

/**
 * What became of one request: signed; gone (the gateway gave it up, nothing to sign); or failed
 * for good (a fault no retry can heal, e.g. the wallet's key no longer exists). A signature comes
 * with what it signs (the wallet and the message's SHA-256): the id may hold another request's
 * content by the time the worker reads it (signature-content.ts), and the gateway answers only
 * with a signature of its own request's content.
 */
export type PersonalSignResult =
  | { outcome: "signed"; signature: string; walletId: string; messageSha256: string }
  | { outcome: "gone" }
  | { outcome: "failed"; reason: string };

/** A batch job's answer: each request's result by its signatureId. */
export interface PersonalSignBatchResult {
  v: 2;
  results: Record<string, PersonalSignResult>;
}

/**
 * Signs one stored personal_sign request. The record, not the job, is the truth: a record that
 * is gone was given up by the gateway (time-out) and is not signed; a record already signed
 * returns its signature, so a retried or duplicated job is harmless.
 */
async function signOne(deps: PersonalSignDeps, signatureId: string, logger: Logger): Promise<PersonalSignResult> {
  const record = await deps.signatures.findForSigning(signatureId);
  if (!record) {
    logger.info({ signatureId }, "signature request no longer exists; skipped");
    return { outcome: "gone" };
  }
  if (record.status === "SIGNED" && record.signature) return signed(record.signature, record);

  const signature = await deps.signer.signMessage(record.walletId, record.message);
  // Only onto the record that was read: one stored under the same id since (the gateway gave
  // the first up meanwhile) keeps waiting for its own signature.
  if (await deps.signatures.markSigned(signatureId, signature, record)) return signed(signature, record);

  // Lost a race: another replica signed it (same deterministic signature), or the gateway gave up.
  const now = await deps.signatures.findById(signatureId);
  return now?.status === "SIGNED" && now.signature && sameContent(now, record) ? signed(now.signature, now) : { outcome: "gone" };
}

const signed = (signature: string, content: SignatureContent): PersonalSignResult => ({
  outcome: "signed",
  signature,
  walletId: content.walletId,
  messageSha256: messageDigest(content.message),
});

/**
 * Signs the requests of a job. The requests of a batch run side by side, so the repository
 * coalesces their reads and updates into one statement each. A fault a retry can heal (Postgres
 * unreachable) fails the whole job, and BullMQ runs it again: requests already signed are then
 * answered from their records. A fault that cannot heal fails only its own request.
 *
 * A v1 job (one request, from a gateway before batching) answers in the v1 shape its gateway
 * waits for.
 */
export function createPersonalSignProcessor(deps: PersonalSignDeps): Processor<"personalSign"> {
  return async (payload, { logger }): Promise<PersonalSignResult | PersonalSignBatchResult> => {
    const ids = payload.v === 1 ? [payload.signatureId] : [...new Set(payload.signatures.map((s) => s.signatureId))];
    const settled = await Promise.allSettled(ids.map((id) => signOne(deps, id, logger)));
    const transient = settled.find((s) => s.status === "rejected" && !(isAppError(s.reason) && !s.reason.retryable));
    if (transient?.status === "rejected") throw toError(transient.reason);

    const results: Record<string, PersonalSignResult> = {};
    settled.forEach((s, i) => {
      const id = ids[i]!;
      if (s.status === "fulfilled") results[id] = s.value;
      else {
        logger.error({ err: toError(s.reason), signatureId: id }, "signature request cannot be signed");
        results[id] = { outcome: "failed", reason: toError(s.reason).message };
      }
    });
    return payload.v === 1 ? results[payload.signatureId]! : { v: 2, results };
  };
}
