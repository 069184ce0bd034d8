import type { Logger } from "@relay/core";
import type { WalletNonceCounter, WalletNonceRepository } from "@relay/db";
import type { ChainHandle } from "../chain-directory";
import { broadcast } from "./broadcast";
import { fillGapIfAbandoned } from "./fill-gap";
import type { StepDeps } from "./deps";

/** Most nonces one check fills in a row for one wallet; the next check goes on from there. */
const MAX_FILLS = 16;

/**
 * How long a transaction has been CONFIRMED or REVERTED before a chain that does not count its
 * nonce is taken to have lost its block, rather than to answer from a node a little behind.
 */
const MINED_AND_UNCOUNTED_AFTER_SECONDS = 120;

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
    if (await fillGapIfAbandoned(deps, handle, counter.address, nonce, logger)) {
      filled++;
      continue;
    }
    if (nonce === latest) await resendIfUncounted(deps, handle, counter.address, nonce, logger);
    break;
  }
  return { raised, filled };
}

/**
 * The chain waits at a nonce whose transaction was mined (CONFIRMED or REVERTED) minutes ago: its
 * block was reorganised away, deeper than its confirmations, and the node did not take it back into
 * its pool. Nothing else would ever use the nonce (a filler could replace that very transaction),
 * and every later transaction of the wallet would wait behind it. Its own signed bytes are sent
 * again: the same transaction, at the same nonce, so it cannot run twice. Its recorded status
 * stays; the operator is told.
 */
async function resendIfUncounted(deps: StepDeps, { record: chain, provider }: ChainHandle, address: string, nonce: bigint, logger: Logger): Promise<void> {
  const mined = await deps.fillers.minedHolder(chain.chainId, address, nonce, MINED_AND_UNCOUNTED_AFTER_SECONDS);
  if (!mined) return;
  const outcome = await broadcast(provider, mined);
  logger.error(
    { chainId: chain.chainId.toString(), address, nonce: nonce.toString(), projectId: mined.projectId, transactionId: mined.transactionId, status: mined.status, hash: mined.hash, outcome: outcome.kind },
    "a mined transaction's nonce is not used on chain any more (its block was reorganised away?): its signed bytes were sent again",
  );
}
