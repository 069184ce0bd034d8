import type { BalanceAt } from "@relay/chain";
import { toError, type Logger } from "@relay/core";
import type { ChainHandle } from "../chain-directory";
import type { StepDeps } from "./deps";
import { topUpIfDue } from "./top-up";

/**
 * The balance at the head block, named by its number (the check records which block it saw), and
 * the wallet's nonce there and with the node's pending transactions. The three reads are issued
 * together, so the provider sends them in one JSON-RPC batch.
 */
const readAtHead = async (
  provider: ChainHandle["provider"],
  head: number,
  address: string,
): Promise<{ observed: BalanceAt; nonce: { latest: number; pending: number } }> => {
  const [balanceWei, latest, pending] = await Promise.all([
    provider.getBalance(address, head),
    provider.getTransactionCount(address, head),
    provider.getTransactionCount(address, "pending"),
  ]);
  return { observed: { balanceWei, blockNumber: head }, nonce: { latest, pending } };
};

/**
 * After a send is final, and once a minute for every wallet, records the wallet's balance against
 * the chain's low-balance threshold (none: never low); once a minute, its nonce on the chain too.
 * The repository writes a WalletBalanceLow event only when the balance crosses below it (not
 * again while it stays low; again after it recovered). A wallet that is low, or `cannotPay` a
 * transaction (a pause), gets a top-up when its project has managed gas (top-up.ts). A failed
 * check must not fail the transaction, whose outcome is already recorded.
 */
export async function checkBalance(
  deps: Pick<StepDeps, "balances" | "topUps">,
  { record: chain, provider, view }: ChainHandle,
  address: string,
  logger: Logger,
  /** The block of the send that became final: the balance is read at or past it. */
  afterBlock?: number,
  /** A transaction of the wallet just paused for want of funds. */
  cannotPay = false,
): Promise<void> {
  const threshold = chain.lowBalanceThresholdWei;
  // After a send, only for WalletBalanceLow and top-ups; the scheduled check (no `afterBlock`)
  // records every wallet's balance on every chain, for the balances Syndicate's wallet list answers.
  if (threshold <= 0n && !cannotPay && afterBlock !== undefined) return;
  try {
    // After sends, one read per wallet per block is shared by the sends that became final together;
    // the scheduled check (once a minute) reads fresh.
    // The scheduled check also reads the wallet's nonce on the chain, recorded beside the balance
    // for the console's wallets page (the relay's next nonce against the chain's).
    const scheduled = afterBlock === undefined ? await readAtHead(provider, await view.head(), address) : undefined;
    const observed = scheduled ? scheduled.observed : await view.balanceAfter(address, afterBlock ?? 0);
    const { crossedBelow } = await deps.balances.recordBalance(chain.chainId, address, observed, threshold);
    if (scheduled) await deps.balances.recordChainNonce(chain.chainId, address, scheduled.nonce);
    if (crossedBelow) logger.warn({ address, balance: observed.balanceWei.toString(), threshold: threshold.toString() }, "wallet balance below threshold");
    if (cannotPay || observed.balanceWei < threshold) await topUpIfDue(deps, chain.chainId, address, observed, logger);
  } catch (e) {
    logger.warn({ err: toError(e), address }, "balance check failed");
  }
}
