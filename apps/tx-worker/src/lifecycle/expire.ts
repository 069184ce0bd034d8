import type { TransactionRecord } from "@relay/db";
import type { StepDeps } from "./deps";

/**
 * PENDING or PAUSED → EXPIRED when the request's expiresAt has passed and nothing was signed for
 * it: "not sent after this time". A transaction with a signed attempt may have been broadcast
 * already (by a run that crashed before it could say so), so from its first signature on it is
 * sent and followed to its end whatever the time. A nonce it had bound is left to the gap filler,
 * as an INVALID one's is. Returns whether it expired (or another run moved it meanwhile).
 * Costs nothing for a transaction without an expiresAt, and one read of its attempts once the
 * time has passed.
 */
export async function expireIfDue(deps: Pick<StepDeps, "transactions" | "now">, tx: TransactionRecord, from: "PENDING" | "PAUSED"): Promise<boolean> {
  const { expiresAt } = tx.request;
  if (expiresAt === null || deps.now() < expiresAt.getTime()) return false;
  if ((await deps.transactions.attempts(tx.projectId, tx.id)).length > 0) return false;
  await deps.transactions.move(tx.projectId, tx.id, {
    from,
    to: "EXPIRED",
    reason: `expiresAt ${expiresAt.toISOString()} passed before it was sent; nothing was broadcast`,
  });
  return true;
}
