import type { BalanceAt } from "@relay/chain";
import { toError, type Logger } from "@relay/core";
import type { ChainHandle } from "../chain-directory";
import type { StepDeps } from "./deps";

/** The balance at the head block, named by its number: the check records which block it saw. */
const readAtHead = async (provider: ChainHandle["provider"], head: number, address: string): Promise<BalanceAt> => ({
  balanceWei: await provider.getBalance(address, head),
  blockNumber: head,
});

/**
 * After a send is final, and once a minute for every wallet, records the wallet's balance against
 * the chain's low-balance threshold (none: never low).
 * The repository writes a WalletBalanceLow event only when the balance crosses below it (not
 * again while it stays low; again after it recovered). A failed check must not fail the
 * transaction, whose outcome is already recorded.
 */
export async function checkBalance(
  deps: Pick<StepDeps, "balances">,
  { record: chain, provider, view }: ChainHandle,
  address: string,
  logger: Logger,
  /** The block of the send that became final: the balance is read at or past it. */
  afterBlock?: number,
): Promise<void> {
  // After a send, only for WalletBalanceLow; the scheduled check (no `afterBlock`) records every
  // wallet's balance on every chain, for the balances Syndicate's wallet list answers.
  if (chain.lowBalanceThresholdWei <= 0n && afterBlock !== undefined) return;
  try {
    // After sends, one read per wallet per block is shared by the sends that became final together;
    // the scheduled check (once a minute) reads fresh.
    const observed = afterBlock === undefined ? await readAtHead(provider, await view.head(), address) : await view.balanceAfter(address, afterBlock);
    const { crossedBelow } = await deps.balances.recordBalance(chain.chainId, address, observed, chain.lowBalanceThresholdWei);
    if (crossedBelow) logger.warn({ address, balance: observed.balanceWei.toString(), threshold: chain.lowBalanceThresholdWei.toString() }, "wallet balance below threshold");
  } catch (e) {
    logger.warn({ err: toError(e), address }, "balance check failed");
  }
}
