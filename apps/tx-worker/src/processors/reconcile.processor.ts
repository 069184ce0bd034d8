import type { TransactionRepository } from "@relay/db";
import { jobIdOf, type Producer, type Processor } from "@relay/queue";

export interface ReconcileDeps {
  transactions: Pick<TransactionRepository, "findUnfinished">;
  producer: Pick<Producer, "enqueue" | "queue">;
  /** Transactions untouched for this long are checked for a live job. */
  idleAfterMs: number;
  batch: number;
  now: () => number;
}

/**
 * Redis is a delivery mechanism, not a store: every unfinished transaction must have a live job.
 * Revives the ones that lost it (Redis restarted empty, a crash between commit and enqueue) and
 * the ones whose job ran out of retries (a long RPC outage).
 */
export function createReconcileProcessor(deps: ReconcileDeps): Processor<"reconcileTransactions"> {
  return async (_payload, { logger }) => {
    const stale = await deps.transactions.findUnfinished({ olderThan: new Date(deps.now() - deps.idleAfterMs), limit: deps.batch });
    let revived = 0;
    for (const tx of stale) {
      const payload = { v: 1 as const, projectId: tx.projectId, transactionId: tx.id };
      const job = await deps.producer.queue("processTransaction").getJob(jobIdOf("processTransaction", payload));
      const state = job ? await job.getState() : "missing";
      if (state === "missing" || state === "unknown" || state === "completed") {
        if (job) await job.remove().catch(() => undefined);
        await deps.producer.enqueue("processTransaction", payload);
        revived++;
      } else if (state === "failed") {
        await job!.retry("failed");
        revived++;
      }
    }
    if (revived > 0) logger.warn({ revived, checked: stale.length }, "revived transactions without a live job");
    return { checked: stale.length, revived };
  };
}
