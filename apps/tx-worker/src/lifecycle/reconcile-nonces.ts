import type { Logger } from "@relay/core";
import type { WalletNonceCounter, WalletNonceRepository } from "@relay/db";
import type { ChainHandle } from "../chain-directory";
import { fillGapIfAbandoned } from "./fill-gap";
import type { StepDeps } from "./deps";

/** Most nonces one check fills in a row for one wallet; the next check goes on from there. */
const MAX_FILLS = 16;

export interface NonceCheck {
  /** The counter was behind the chain's pending nonce and was raised to it. */
  raised: boolean;
  /** Abandoned nonces at the head of the wallet's line that got a self-transfer. */
  filled: number;
}

/**
 * Compares one wallet's counter in Postgres with the chain. Two ways they part, both mended here
 * without waiting for a transaction to notice:
 * - the chain is ahead (the key sent outside the relay): the counter is raised, so the next
 *   allocation does not hand out a nonce the chain has already used;
 * - the chain is behind and the nonce it waits for is abandoned (bound to a transaction that
 *   failed before sending, or to none): that nonce, and abandoned ones right after it, get a 0-value
 *   self-transfer, so the wallet's later transactions can be mined. A transaction's own job does
 *   the same after its stuck time (follow.ts); this does it within a reconcile period, and also
 *   for a gap with nothing behind it yet.
 */
export async function reconcileWalletNonce(
  deps: StepDeps & { walletNonces: Pick<WalletNonceRepository, "raiseTo"> },
  handle: ChainHandle,
  counter: WalletNonceCounter,
  logger: Logger,
): Promise<NonceCheck> {
  const { provider } = handle;
  const [latest, pending] = (
    await Promise.all([provider.getTransactionCount(counter.address, "latest"), provider.getTransactionCount(counter.address, "pending")])
  ).map(BigInt) as [bigint, bigint];

  let raised = false;
  if (pending > counter.next) {
    const previous = await deps.walletNonces.raiseTo(counter.chainId, counter.address, pending);
    if (previous !== null) {
      raised = true;
      logger.warn(
        { chainId: counter.chainId.toString(), address: counter.address, previous: previous.toString(), next: pending.toString() },
        "nonce counter was behind the chain (the key was used outside the relay); raised",
      );
    }
  }

  let filled = 0;
  for (let nonce = latest; nonce < counter.next && filled < MAX_FILLS; nonce++) {
    if (!(await fillGapIfAbandoned(deps, handle, counter.address, nonce, logger))) break;
    filled++;
  }
  return { raised, filled };
}
