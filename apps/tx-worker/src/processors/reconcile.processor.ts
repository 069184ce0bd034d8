import { createSweep } from "@relay/core";
import type { TransactionRecord, TransactionRepository } from "@relay/db";
import { reviveIfLost, type Producer, type Processor } from "@relay/queue";

export interface ReconcileDeps {
  transactions: Pick<TransactionRepository, "findUnfinished">;
  producer: Pick<Producer, "enqueue" | "queue">;
  /** Transactions untouched for this long are checked for a live job. */
  idleAfterMs: number;
  /** Transactions checked per run; a run continues where the one before stopped. */
  batch: number;
  now: () => number;
}

/**
 * Redis is a delivery mechanism, not a store: every unfinished transaction must have a live job.
 * Revives the ones that lost it (Redis restarted empty, a crash between commit and enqueue) and
 * the ones whose job ran out of retries (a long RPC outage). Each run checks the next `batch` of
 * idle transactions (oldest first, then from the top again), so the idle ones that are fine (a
 * paused wallet's, a queue of SUBMITTED ones) cannot keep a lost one behind them unchecked.
 */
export function createReconcileProcessor(deps: ReconcileDeps): Processor<"reconcileTransactions"> {
  const nextIdle = createSweep({
    page: (after: TransactionRecord | undefined, limit) =>
      deps.transactions.findUnfinished({ olderThan: new Date(deps.now() - deps.idleAfterMs), limit, after }),
    keyOf: (tx) => tx,
    limit: deps.batch,
  });
  return async (_payload, { logger }) => {
    const idle = await nextIdle();
    let revived = 0;
    for (const tx of idle) {
      if (await reviveIfLost(deps.producer, "processTransaction", { v: 1, projectId: tx.projectId, transactionId: tx.id })) revived++;
    }
    if (revived > 0) logger.warn({ revived, checked: idle.length }, "revived transactions without a live job");
    return { checked: idle.length, revived };
  };
}
