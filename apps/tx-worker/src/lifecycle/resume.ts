import { maxGasCost } from "@relay/chain";
import type { TransactionRecord } from "@relay/db";
import { runAgainIn, type RunAgain } from "@relay/queue";
import { feesOf } from "./sign-attempt";
import type { StepDeps } from "./deps";

/**
 * PAUSED → PENDING once the wallet can pay again (checked every few blocks); nobody has to ask.
 * With a signed attempt the need is exact; without one, any balance above zero is worth a retry
 * (the PENDING step simulates again and pauses again if it still cannot pay).
 */
export async function resume(deps: StepDeps, tx: TransactionRecord): Promise<RunAgain | "done"> {
  const { record: chain, view } = await deps.chains.get(tx.chainId);
  if (!tx.fromAddress) return moveToPending(deps, tx);
  const balance = await view.balance(tx.fromAddress);
  const attempts = await deps.transactions.attempts(tx.projectId, tx.id);
  const latest = attempts[attempts.length - 1];
  const needed = latest ? maxGasCost(feesOf(latest), latest.gasLimit) + tx.valueWei : 1n;
  if (balance < needed) return runAgainIn(Math.max(chain.blockTimeMs, 2000));
  return moveToPending(deps, tx);
}

async function moveToPending(deps: StepDeps, tx: TransactionRecord): Promise<RunAgain> {
  await deps.transactions.move(tx.projectId, tx.id, { from: "PAUSED", to: "PENDING", reason: "wallet can pay again" });
  return runAgainIn(0);
}
