import { createSweep } from "@relay/core";
import type { ChainRepository, WalletRepository } from "@relay/db";
import type { Processor } from "@relay/queue";
import type { ChainDirectory } from "../chain-directory";
import { checkBalance } from "../lifecycle/check-balance";

export interface CheckBalancesDeps {
  chains: Pick<ChainRepository, "list">;
  directory: ChainDirectory;
  wallets: Pick<WalletRepository, "listAddresses">;
  step: Parameters<typeof checkBalance>[0];
  /** Most wallets one run checks (on every chain); the next run goes on after the last one, and from the top after the end. */
  batch: number;
}

/** Wallets checked at once: each check is a balance read, batched with the others into JSON-RPC batches. */
const PARALLEL = 200;

/**
 * The scheduled half of WalletBalanceLow (the other half runs after each send): the wallets on
 * every chain, so a wallet drained from outside the relay is noticed too, and a new or idle
 * wallet's balance is known (chains without a threshold record it, never low). A run checks at
 * most `batch` wallets, so its cost does not grow with the number of wallets: with more, each is
 * checked every ceil(wallets / batch) runs. The repository fires once per crossing, so running
 * this on any replica, any number of times, sends one event per drop.
 */
export function createCheckBalancesProcessor(deps: CheckBalancesDeps): Processor<"checkBalances"> {
  const nextPage = createSweep({
    page: (after: string | undefined, limit) => deps.wallets.listAddresses({ after, limit }),
    keyOf: (address) => address,
    limit: deps.batch,
  });
  return async (_payload, { logger }) => {
    const addresses = await nextPage();
    let checked = 0;
    // Every chain, threshold or not: the recorded balances are also what GET /wallet/project/{projectId}/wallets?withData=true answers.
    for (const chain of await deps.chains.list()) {
      const handle = await deps.directory.get(chain.chainId);
      for (let i = 0; i < addresses.length; i += PARALLEL) {
        const part = addresses.slice(i, i + PARALLEL);
        await Promise.all(part.map((address) => checkBalance(deps.step, handle, address, logger)));
        checked += part.length;
      }
    }
    return { checked };
  };
}
