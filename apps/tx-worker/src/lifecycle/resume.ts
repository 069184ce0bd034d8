import { maxGasCost } from "@relay/chain";
import type { TransactionRecord } from "@relay/db";
import { runAgainIn, type RunAgain } from "@relay/queue";
import { feesOf } from "./sign-attempt";
import { walletOrder } from "./wallet-choice";
import type { StepDeps } from "./deps";

/**
 * PAUSED → PENDING once a wallet can pay again (checked every few blocks); nobody has to ask.
 * A transaction that holds a nonce waits for its own wallet; one that does not, for any wallet of
 * the project (the PENDING step picks the one that can pay). The need: exact with a signed attempt,
 * the gas limit simulated at the pause at today's fees without one, and above the call's value when
 * not even a simulation could run; the PENDING step simulates again and pauses again if still short.
 */
export async function resume(deps: StepDeps, tx: TransactionRecord): Promise<RunAgain | "done"> {
  const { record: chain, view } = await deps.chains.get(tx.chainId);
  const attempts = await deps.transactions.attempts(tx.projectId, tx.id);
  const latest = attempts[attempts.length - 1];
  const needed = latest
    ? maxGasCost(feesOf(latest), latest.gasLimit) + tx.valueWei
    : tx.gasLimit !== null
      ? maxGasCost(await view.fees(), tx.gasLimit) + tx.valueWei
      : tx.valueWei + 1n;
  const candidates =
    tx.nonce !== null && tx.fromAddress ? [tx.fromAddress] : walletOrder(await deps.wallets.listByProject(tx.projectId), tx.id).map((w) => w.address);
  for (const address of candidates) {
    if ((await view.balance(address)) >= needed) return moveToPending(deps, tx);
  }
  return runAgainIn(Math.max(chain.blockTimeMs, 2000));
}

async function moveToPending(deps: StepDeps, tx: TransactionRecord): Promise<RunAgain> {
  await deps.transactions.move(tx.projectId, tx.id, { from: "PAUSED", to: "PENDING", reason: "wallet can pay again" });
  return runAgainIn(0);
}
