import { maxGasCost, type BlockTag, type ChainView } from "@relay/chain";
import { AppError, type Logger } from "@relay/core";
import type { AttemptRecord, TransactionRecord, WalletRecord } from "@relay/db";
import { runAgainIn, type RunAgain } from "@relay/queue";
import type { ChainHandle } from "../chain-directory";
import { chooseSender } from "./choose-sender";
import type { BoundTransaction, StepDeps } from "./deps";
import { pauseUntilFunded } from "./pause";
import { revertReason } from "./revert-reason";
import { signAttempt } from "./sign-attempt";
import { sizeGasInOrder } from "./size-gas-in-order";

/** The first attempt, signed and stored; or what was decided instead (INVALID, PAUSED, another look). */
export type FirstAttempt = { kind: "signed"; attempt: AttemptRecord } | { kind: "decided"; result: RunAgain | "done" };

const decided = (result: RunAgain | "done"): FirstAttempt => ({ kind: "decided", result });

/** Whether the address holds code, as the chain view keeps it; a failed read is retried. */
const hasCode = (view: ChainView, address: string): Promise<boolean> =>
  view.hasCode(address).catch((e: unknown) => {
    throw new AppError("UNAVAILABLE", `reading the code at ${address} failed`, { retryable: true, cause: e });
  });

/**
 * Signs a transaction that has no attempt yet. In order: a call to an address without code is
 * INVALID (a wrong chain or address would otherwise end CONFIRMED, having done nothing), a wallet of `candidates` that can pay,
 * simulated from (no nonce is taken for a call that reverts), the nonce from Postgres, the gas
 * limit after the wallet's earlier transactions, fees, signature, and the attempt stored before
 * anything is broadcast.
 */
export async function signFirstAttempt(
  deps: StepDeps,
  handle: ChainHandle,
  tx: TransactionRecord,
  candidates: readonly WalletRecord[],
  logger: Logger,
): Promise<FirstAttempt> {
  const { view } = handle;
  if (tx.kind === "CALL" && !(await hasCode(view, tx.contractAddress))) {
    // Before any nonce is taken: nothing is signed, no gas is spent.
    const reason = `no contract at ${tx.contractAddress} on chain ${handle.record.chainId}: wrong chain or address?`;
    await deps.transactions.move(tx.projectId, tx.id, { from: "PENDING", to: "INVALID", reason });
    logger.info({ contractAddress: tx.contractAddress }, "no contract code at the address; INVALID");
    return decided("done");
  }
  const choice = await chooseSender(view, deps.transactions, tx, candidates);
  if (choice.kind !== "chosen" && (await deps.transactions.attempts(tx.projectId, tx.id)).length > 0) {
    // Another run of this job (one handed back at shutdown, or taken over after a stall, while
    // the first still runs) signed and sent the transaction while this one simulated. A revert or
    // an empty wallet seen now may be that very transaction's doing, mined meanwhile (a one-shot
    // call, the funds it spent): it is not INVALID, and its attempt is followed on the next run.
    // Its attempt was stored before it was broadcast, so a simulation that saw it mined finds it.
    return decided(runAgainIn(0));
  }
  if (choice.kind === "reverted") {
    const set = choice.revertData === null ? {} : { revertData: choice.revertData };
    await deps.transactions.move(tx.projectId, tx.id, { from: "PENDING", to: "INVALID", reason: choice.reason, set });
    return decided("done");
  }
  if (choice.kind === "unfunded") {
    const set = { fromAddress: choice.wallet.address, ...(choice.gasLimit === null ? {} : { gasLimit: choice.gasLimit }) };
    return decided(await pauseUntilFunded(deps, handle, tx, choice.reason, set, logger));
  }
  const { wallet, fees } = choice;

  const binding = await deps.transactions.allocateNonce({
    projectId: tx.projectId,
    transactionId: tx.id,
    address: wallet.address,
    // The chain's count is a floor (the key used outside the relay); a block old is enough.
    chainPendingNonce: await view.pendingNonce(wallet.address),
  });
  if (!binding) return decided("done"); // moved on by another worker meanwhile
  const bound = { ...tx, fromAddress: binding.fromAddress, nonce: binding.nonce };
  const gasLimit = await gasLimitInOrder(deps, view, bound, choice, logger);
  if (gasLimit === null) return decided("done");

  if (binding.fromAddress !== wallet.address) {
    // Bound by an earlier run to another wallet: that one must pay.
    const balance = await view.balance(binding.fromAddress);
    const needed = maxGasCost(fees, gasLimit) + tx.valueWei;
    if (balance < needed) {
      const reason = `wallet ${binding.fromAddress} holds ${balance} wei, needs up to ${needed} wei`;
      return decided(await pauseUntilFunded(deps, handle, tx, reason, { fromAddress: binding.fromAddress, nonce: binding.nonce, gasLimit }, logger));
    }
  }
  const walletId = binding.fromAddress === wallet.address ? wallet.id : (await deps.wallets.findByAddress(binding.fromAddress))?.id;
  if (!walletId) throw new AppError("INTERNAL", `wallet ${binding.fromAddress} no longer exists`);
  const attempt = await signAttempt(deps, bound, walletId, gasLimit, fees);
  logger.info({ nonce: binding.nonce.toString(), from: binding.fromAddress, hash: attempt.hash }, "transaction signed");
  return { kind: "signed", attempt };
}

/**
 * The gas limit of a bound transaction after the wallet's earlier ones (size-gas-in-order.ts), or
 * null when it reverts after them: INVALID, and its nonce is filled by a self-transfer.
 */
async function gasLimitInOrder(
  deps: StepDeps,
  view: ChainView,
  tx: BoundTransaction,
  { gasLimit: estimated, at }: { gasLimit: bigint; at: BlockTag },
  logger: Logger,
): Promise<bigint | null> {
  const call = { from: tx.fromAddress, to: tx.contractAddress, data: `0x${Buffer.from(tx.calldata).toString("hex")}`, value: tx.valueWei };
  const inOrder = await sizeGasInOrder(deps.transactions, view, call, tx, tx.nonce, estimated, at);
  if (inOrder === null) return estimated;
  const context = { nonce: tx.nonce.toString(), from: tx.fromAddress, ahead: inOrder.ahead, estimated: estimated.toString() };
  if (inOrder.kind === "too-many") {
    logger.warn(context, "too many of the wallet's transactions in flight to size the gas limit after them: the estimate stands");
    return estimated;
  }
  if (inOrder.kind === "reverted") {
    const reason = `simulation reverted after the wallet's ${inOrder.ahead} earlier transaction(s) still in flight: ${revertReason(tx, inOrder.data, inOrder.reason)}`;
    const set = inOrder.data === null ? {} : { revertData: inOrder.data };
    await deps.transactions.move(tx.projectId, tx.id, { from: "PENDING", to: "INVALID", reason, set });
    logger.info(context, "the call reverts after the wallet's earlier transactions; INVALID, its nonce to be filled");
    return null;
  }
  if (tx.request.gasLimit !== null) return tx.request.gasLimit; // the request's, as it is
  if (inOrder.gasLimit !== estimated) logger.info({ ...context, gasLimit: inOrder.gasLimit.toString() }, "gas limit raised for the state the wallet's earlier transactions leave");
  return inOrder.gasLimit;
}
