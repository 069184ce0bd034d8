import type { SignatureRepository } from "@relay/db";
import type { Signer } from "@relay/custody";
import type { Processor } from "@relay/queue";

export interface PersonalSignDeps {
  signatures: Pick<SignatureRepository, "findForSigning" | "markSigned" | "findById">;
  signer: Pick<Signer, "signMessage">;
}

export type PersonalSignResult = { outcome: "signed"; signature: string } | { outcome: "gone" };

/**
 * Signs one stored personal_sign request. The record, not the job, is the truth: a record that
 * is gone was given up by the gateway (time-out) and is not signed; a record already signed
 * returns its signature, so a retried or duplicated job is harmless.
 */
export function createPersonalSignProcessor(deps: PersonalSignDeps): Processor<"personalSign"> {
  return async ({ signatureId }, { logger }): Promise<PersonalSignResult> => {
    const record = await deps.signatures.findForSigning(signatureId);
    if (!record) {
      logger.info({ signatureId }, "signature request no longer exists; skipped");
      return { outcome: "gone" };
    }
    if (record.status === "SIGNED" && record.signature) return { outcome: "signed", signature: record.signature };

    const signature = await deps.signer.signMessage(record.walletId, record.message);
    if (await deps.signatures.markSigned(signatureId, signature)) return { outcome: "signed", signature };

    // Lost a race: another replica signed it (same deterministic signature) or the gateway gave up.
    const now = await deps.signatures.findById(signatureId);
    return now?.status === "SIGNED" && now.signature ? { outcome: "signed", signature: now.signature } : { outcome: "gone" };
  };
}
