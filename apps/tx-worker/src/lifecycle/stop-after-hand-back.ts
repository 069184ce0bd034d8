import { AppError } from "@relay/core";
import type { StepDeps } from "./deps";

/**
 * The steps' deps for one run, whose writes stop once the run was handed back to the queue (the
 * process is stopping): another replica starts the job at once while this run may still be inside
 * an RPC call. Its status moves, nonce binding and new signed attempts then fail instead of
 * deciding against the other run's (a revert this run simulated while the other run signed and
 * sent the call moved a sent transaction to INVALID). Broadcasting an attempt already stored is
 * left alone: the same signed bytes, which the other run follows too.
 */
export function stopWritesOnHandBack(deps: StepDeps, handedBack: () => boolean): StepDeps {
  const check = () => {
    if (handedBack()) throw new AppError("UNAVAILABLE", "this run of the job was handed back to the queue; it stops before its next write", { retryable: true });
  };
  const transactions = deps.transactions;
  return {
    ...deps,
    transactions: {
      ...transactions,
      move: async (...args) => {
        check();
        return transactions.move(...args);
      },
      allocateNonce: async (...args) => {
        check();
        return transactions.allocateNonce(...args);
      },
      recordAttempt: async (...args) => {
        check();
        return transactions.recordAttempt(...args);
      },
    },
  };
}
