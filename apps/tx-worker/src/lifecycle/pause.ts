import type { Logger } from "@relay/core";
import type { MoveFields, TransactionRecord } from "@relay/db";
import { runAgainIn, type RunAgain } from "@relay/queue";
import type { ChainHandle } from "../chain-directory";
import { checkBalance } from "./check-balance";
import type { StepDeps } from "./deps";

/**
 * PENDING → PAUSED: the wallet `set.fromAddress` cannot pay (the PAUSED step, resume.ts, moves it
 * back once a wallet can). A wallet that cannot pay is the low balance a WalletBalanceLow event is
 * for: checked now, not at the next scheduled check up to a minute later. Read at the head through
 * the chain view, so the transactions that pause on one wallet in one block share one balance read.
 * With managed gas, the wallet is topped up from its funding wallet then (check-balance.ts).
 */
export async function pauseUntilFunded(
  deps: StepDeps,
  handle: ChainHandle,
  tx: TransactionRecord,
  reason: string,
  set: MoveFields & { fromAddress: string },
  logger: Logger,
): Promise<RunAgain> {
  await deps.transactions.move(tx.projectId, tx.id, { from: "PENDING", to: "PAUSED", reason, set });
  await checkBalance(deps, handle, set.fromAddress, logger, await handle.view.head(), true);
  return runAgainIn(handle.record.blockTimeMs);
}
