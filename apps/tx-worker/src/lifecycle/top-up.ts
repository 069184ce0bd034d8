import type { BalanceAt } from "@relay/chain";
import { toError, type Logger } from "@relay/core";
import type { StepDeps } from "./deps";

/**
 * Managed gas (docs/funding.md): after a balance check of a wallet that is low (below the chain's
 * threshold) or cannot pay a transaction, a top-up from its project's funding wallet on the chain,
 * if one is set and due (the repository decides, idempotently: at most one unfinished per wallet,
 * none for a shortfall a mined top-up already covers), then its job. A lost enqueue is the
 * reconciler's to revive, as for any transaction. A failure must not fail the step that checked.
 */
export async function topUpIfDue(deps: Pick<StepDeps, "topUps">, chainId: bigint, address: string, observed: BalanceAt, logger: Logger): Promise<void> {
  try {
    const topUp = await deps.topUps.topUpIfDue(chainId, address, observed);
    if (!topUp) return;
    logger.info(
      { wallet: address, from: topUp.fromAddress, amount: topUp.amountWei.toString(), topUpId: topUp.id, block: observed.blockNumber },
      "managed gas: wallet topped up from its funding wallet",
    );
    await deps.topUps.enqueue(topUp).catch((e: unknown) => logger.warn({ err: toError(e), topUpId: topUp.id }, "enqueue of a top-up failed; the reconciler will pick it up"));
  } catch (e) {
    logger.warn({ err: toError(e), wallet: address }, "managed gas: top-up decision failed");
  }
}
