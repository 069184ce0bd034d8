import { maxGasCost } from "@relay/chain";
import type { TransactionRecord } from "@relay/db";
import { runAgainIn, type RunAgain } from "@relay/queue";
import { broadcast } from "./broadcast";
import { chooseSender } from "./choose-sender";
import { feesOf } from "./sign-attempt";
import { walletCandidates } from "./wallet-choice";
import { expireIfDue } from "./expire";
import { feesFor } from "./fee-caps";
import type { StepDeps } from "./deps";

/**
 * PAUSED → PENDING once a wallet can pay again (checked every few blocks); nobody has to ask.
 * A transaction that holds a nonce waits for its own wallet; one that does not, for any wallet of
 * the project (the PENDING step picks the one that can pay). The need: exact with a signed attempt,
 * the gas limit simulated at the pause at today's fees without one, and above the call's value when
 * not even a simulation could run. A signed attempt resumes only once the node takes it; without
 * one, once the PENDING step's own choice of wallet finds one that can pay.
 */
export async function resume(deps: StepDeps, tx: TransactionRecord): Promise<RunAgain | "done"> {
  if (await expireIfDue(deps, tx, "PAUSED")) return "done";
  const { record: chain, provider, view } = await deps.chains.get(tx.chainId);
  const attempts = await deps.transactions.attempts(tx.projectId, tx.id);
  const latest = attempts[attempts.length - 1];
  const needed = latest
    ? maxGasCost(feesOf(latest), latest.gasLimit) + tx.valueWei
    : tx.gasLimit !== null
      ? maxGasCost(await feesFor(view, tx), tx.gasLimit) + tx.valueWei
      : tx.valueWei + 1n;
  // The PENDING step's candidates, in its order.
  const candidates = walletCandidates(await deps.wallets.listByProject(tx.projectId), tx);
  const later = runAgainIn(Math.max(chain.blockTimeMs, 2000));
  let mayPay = false;
  for (const wallet of candidates) {
    if ((await view.balance(wallet.address)) >= needed) {
      mayPay = true;
      break;
    }
  }
  if (!mayPay) return later;
  // Moved back to PENDING on a need that step does not share, the step would pause it again at
  // once: two status changes and two events every few seconds, for as long as the wallets stay short.
  // The node may ask more than the need reckoned here (OP-stack chains add the L1 data fee, geth
  // counts the wallet's other queued transactions), so a signed attempt is offered to the node
  // first. Without one, the wallets are simulated as the PENDING step will: another wallet's call
  // may cost more gas than the preferred one's (its own storage slots), and a simulation refused
  // for funds left no gas limit to reckon with at all.
  if (latest) return (await broadcast(provider, latest)).kind === "insufficient-funds" ? later : moveToPending(deps, tx);
  const choice = await chooseSender(view, deps.transactions, tx, candidates);
  // A call that reverts now goes to the PENDING step too, which makes it INVALID.
  return choice.kind === "unfunded" ? later : moveToPending(deps, tx);
}

async function moveToPending(deps: StepDeps, tx: TransactionRecord): Promise<RunAgain> {
  await deps.transactions.move(tx.projectId, tx.id, { from: "PAUSED", to: "PENDING", reason: "wallet can pay again" });
  return runAgainIn(0);
}
