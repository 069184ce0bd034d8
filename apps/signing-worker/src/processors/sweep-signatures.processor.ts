import type { SignatureRepository } from "@relay/db";
import type { Processor } from "@relay/queue";

export interface SweepSignaturesDeps {
  signatures: Pick<SignatureRepository, "deletePendingOlderThan">;
  /** Requests still PENDING after this long were abandoned: no gateway waits that long. */
  abandonedAfterMs: number;
  now?: () => Date;
}

/** Deletes abandoned PENDING signature requests so that no half-written record stays behind. */
export function createSweepSignaturesProcessor(deps: SweepSignaturesDeps): Processor<"sweepSignatures"> {
  return async (_payload, { logger }) => {
    const now = deps.now?.() ?? new Date();
    const removed = await deps.signatures.deletePendingOlderThan(new Date(now.getTime() - deps.abandonedAfterMs));
    if (removed > 0) logger.info({ removed }, "removed abandoned signature requests");
    return { removed };
  };
}
