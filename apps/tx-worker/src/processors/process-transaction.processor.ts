import { AppError, isAppError, toError } from "@relay/core";
import { isFinal } from "@relay/lifecycle";
import type { Processor, RunAgain } from "@relay/queue";
import type { StepDeps } from "../lifecycle/deps";
import { STEPS } from "../lifecycle/steps";
import { stopWritesOnHandBack } from "../lifecycle/stop-after-hand-back";

/** Faults of the replica's own configuration (a key-encryption key that cannot open the wallet's key). */
const REPLICA_FAULTS = new Set(["CRYPTO", "CONFIG"]);

/**
 * One run of a transaction's job: the step for its current status (STEPS). Transient faults throw
 * and BullMQ retries; a fault that cannot heal ends the transaction as FAILED with the reason, so
 * no request stays unfinished without saying why, unless it was broadcast (SUBMITTED): one of its
 * attempts may be mined, so it is retried and logged at error level instead. A replica's own
 * configuration is not the transaction's fault: it is retried, so a correctly configured replica,
 * or this one once fixed, takes it.
 */
export function createProcessTransactionProcessor(shared: StepDeps): Processor<"processTransaction"> {
  // The job's logger already names the project and transaction (its payload's ids).
  return async ({ projectId, transactionId }, { logger, handedBack }): Promise<RunAgain | { status: string }> => {
    const deps = handedBack ? stopWritesOnHandBack(shared, handedBack) : shared;
    const tx = await deps.transactions.findById(projectId, transactionId);
    if (!tx) return { status: "missing" };
    if (isFinal(tx.status)) return { status: tx.status };
    try {
      const result = await STEPS[tx.status](deps, tx, { logger });
      return result === "done" ? { status: (await deps.transactions.findById(projectId, transactionId))?.status ?? "missing" } : result;
    } catch (e) {
      const error = toError(e);
      if (isAppError(error) && REPLICA_FAULTS.has(error.code)) {
        logger.error({ err: error }, "this replica cannot process the transaction; check its configuration");
        throw new AppError(error.code, error.message, { retryable: true, cause: error });
      }
      if (isAppError(error) && !error.retryable && tx.status === "SUBMITTED") {
        // Something of it may be mined: FAILED (final, and an invitation to send again) could mean
        // a call executed twice. It stays SUBMITTED, retried and loud, until an operator mends it.
        logger.error({ err: error }, "cannot follow a broadcast transaction; it stays SUBMITTED until this is mended");
        throw new AppError(error.code, error.message, { retryable: true, cause: error });
      }
      if (isAppError(error) && !error.retryable) {
        const moved = await deps.transactions.move(projectId, transactionId, { from: tx.status, to: "FAILED", reason: error.message });
        logger.error({ err: error, moved }, "transaction failed for good");
        return { status: moved ? "FAILED" : ((await deps.transactions.findById(projectId, transactionId))?.status ?? "missing") };
      }
      throw error;
    }
  };
}
