import type { TransactionRecord } from "@relay/db";
import type { TransactionStatus } from "@relay/lifecycle";
import type { StepDeps } from "./deps";

/**
 * Writes `reason` into the transaction's history as a move to the status it has (the project
 * learns why it waits, and its webhook hears it), unless the last entry already says `marker`:
 * once per such wait, however often the job looks again.
 */
export async function noteReasonOnce(
  deps: Pick<StepDeps, "transactions">,
  tx: Pick<TransactionRecord, "projectId" | "id">,
  status: Extract<TransactionStatus, "PENDING" | "SUBMITTED">,
  marker: string,
  reason: string,
): Promise<void> {
  const history = await deps.transactions.history(tx.projectId, tx.id);
  if (history[history.length - 1]?.reason?.includes(marker)) return;
  await deps.transactions.move(tx.projectId, tx.id, { from: status, to: status, reason });
}
