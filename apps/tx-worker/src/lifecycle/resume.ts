import { maxGasCost } from "@relay/chain";
import type { TransactionRecord } from "@relay/db";
import { runAgainIn, type RunAgain } from "@relay/queue";
import { broadcast } from "./broadcast";
import { feesOf } from "./sign-attempt";
import { walletOrder } from "./wallet-choice";
import type { StepDeps } from "./deps";

/**
 * PAUSED → PENDING once a wallet can pay again (checked every few blocks); nobody has to ask.
 * A transaction that holds a nonce waits for its own wallet; one that does not, for any wallet of
 * the project (the PENDING step picks the one that can pay). The need: exact with a signed attempt,
 * the gas limit simulated at the pause at today's fees without one, and above the call's value when
 * not even a simulation could run; the PENDING step simulates again and pauses again if still short.
 * A signed attempt resumes only once the node takes it.
 */
export async function resume(deps: StepDeps, tx: TransactionRecord): Promise<RunAgain | "done"> {
  const { record: chain, provider, view } = await deps.chains.get(tx.chainId);
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
    if ((await view.balance(address)) < needed) continue;
    // The node may ask more than the need reckoned here: OP-stack chains add the L1 data fee,
    // geth counts the wallet's other queued transactions. A signed attempt is offered to the node
    // first, so one it refuses for funds stays PAUSED without a move; moved back to PENDING, the
    // same refusal paused it again at once, two status changes and events every few seconds.
    if (latest && (await broadcast(provider, latest)).kind === "insufficient-funds") break;
    return moveToPending(deps, tx);
  }
  return runAgainIn(Math.max(chain.blockTimeMs, 2000));
}

async function moveToPending(deps: StepDeps, tx: TransactionRecord): Promise<RunAgain> {
  await deps.transactions.move(tx.projectId, tx.id, { from: "PAUSED", to: "PENDING", reason: "wallet can pay again" });
  return runAgainIn(0);
}
