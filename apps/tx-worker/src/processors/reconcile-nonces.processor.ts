import { createSweep, toError } from "@relay/core";
import type { WalletNonceCounter, WalletNonceRepository } from "@relay/db";
import type { Processor } from "@relay/queue";
import { reconcileWalletNonce } from "../lifecycle/reconcile-nonces";
import type { StepDeps } from "../lifecycle/deps";

export interface ReconcileNoncesDeps {
  step: StepDeps;
  walletNonces: Pick<WalletNonceRepository, "toReconcile" | "raiseTo">;
  /** Wallets that handed out a nonce within this window are checked even with nothing in flight. */
  activeWithinMs: number;
  /** Most wallets one run checks; the next run goes on after the last one (and from the top after the end). */
  batch: number;
}

/** Wallets of one chain checked at once: each check is two RPC calls, and a gap's filler a few more. */
const PARALLEL = 8;

/**
 * The reconciler's nonce half (docs/transactions.md): every active wallet's counter against its
 * chain. A chain that fails a check (down, or a wallet on it that cannot be mended now) is left for
 * this run after one warning, its remaining wallets counted as `unreachable`: the other chains are
 * still checked, and the next run tries it again.
 */
export function createReconcileNoncesProcessor(deps: ReconcileNoncesDeps): Processor<"reconcileNonces"> {
  const nextPage = createSweep({
    page: (after: WalletNonceCounter | undefined, limit) => deps.walletNonces.toReconcile({ activeWithinMs: deps.activeWithinMs, limit, after }),
    keyOf: (counter) => counter,
    limit: deps.batch,
  });
  return async (_payload, { logger }) => {
    const counters = await nextPage();
    const byChain = new Map<bigint, WalletNonceCounter[]>();
    for (const counter of counters) byChain.set(counter.chainId, [...(byChain.get(counter.chainId) ?? []), counter]);
    const result = { checked: 0, raised: 0, filled: 0, unreachable: 0 };

    for (const [chainId, queue] of byChain) {
      let failed = false;
      const next = async (): Promise<void> => {
        for (let counter = queue.shift(); counter && !failed; counter = queue.shift()) {
          try {
            const handle = await deps.step.chains.get(chainId);
            const check = await reconcileWalletNonce({ ...deps.step, walletNonces: deps.walletNonces }, handle, counter, logger);
            result.checked++;
            if (check.raised) result.raised++;
            result.filled += check.filled;
          } catch (e) {
            result.unreachable += 1 + (failed ? 0 : queue.length);
            if (!failed) logger.warn({ err: toError(e), chainId: chainId.toString(), address: counter.address }, "could not check wallet nonces against this chain; next run tries again");
            failed = true;
          }
        }
      };
      await Promise.all(Array.from({ length: PARALLEL }, next));
    }
    if (result.raised + result.filled + result.unreachable > 0) logger.warn(result, "wallet nonces reconciled with their chains");
    return result;
  };
}
