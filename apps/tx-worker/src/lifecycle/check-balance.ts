import type { BalanceAt } from "@relay/chain";
import { toError, type Logger } from "@relay/core";
import type { ChainHandle } from "../chain-directory";
import type { StepDeps } from "./deps";
import { topUpIfDue } from "./top-up";

/** The balance at the head block, named by its number: the check records which block it saw. */
const readAtHead = async (provider: ChainHandle["provider"], head: number, address: string): Promise<BalanceAt> => ({
  balanceWei: await provider.getBalance(address, head),
  blockNumber: head,
});

/**
 * After a send is final, and once a minute for every wallet, records the wallet's balance against
 * the chain's low-balance threshold (none: never low).
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
    const observed = afterBlock === undefined ? await readAtHead(provider, await view.head(), address) : await view.balanceAfter(address, afterBlock);
    const { crossedBelow } = await deps.balances.recordBalance(chain.chainId, address, observed, threshold);
    if (crossedBelow) logger.warn({ address, balance: observed.balanceWei.toString(), threshold: threshold.toString() }, "wallet balance below threshold");
    if (cannotPay || observed.balanceWei < threshold) await topUpIfDue(deps, chain.chainId, address, observed, logger);
  } catch (e) {
    logger.warn({ err: toError(e), address }, "balance check failed");
  }
}
