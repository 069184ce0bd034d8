import type { ChainRepository, WalletRepository } from "@relay/db";
import type { Processor } from "@relay/queue";
import type { ChainDirectory } from "../chain-directory";
import { checkBalance } from "../lifecycle/check-balance";

export interface CheckBalancesDeps {
  chains: Pick<ChainRepository, "list">;
  directory: ChainDirectory;
  wallets: Pick<WalletRepository, "listAddresses">;
  step: Parameters<typeof checkBalance>[0];
}

const PAGE = 200;

/**
 * The scheduled half of WalletBalanceLow (the other half runs after each send): every wallet on
 * every chain, so a wallet drained from outside the relay is noticed too, and a new or idle
 * wallet's balance is known within a minute (chains without a threshold record it, never low).
 * The repository fires once per crossing, so running this on any replica, any number of times,
 * sends one event per drop.
 */
export function createCheckBalancesProcessor(deps: CheckBalancesDeps): Processor<"checkBalances"> {
  return async (_payload, { logger }) => {
    let checked = 0;
    // Every chain, threshold or not: the recorded balances are also what GET /wallet/project/{projectId}/wallets?withData=true answers.
    for (const chain of await deps.chains.list()) {
      const handle = await deps.directory.get(chain.chainId);
      let after: string | undefined;
      for (;;) {
        const page = await deps.wallets.listAddresses({ after, limit: PAGE });
        await Promise.all(page.map((address) => checkBalance(deps.step, handle, address, logger)));
        checked += page.length;
        if (page.length < PAGE) break;
        after = page[page.length - 1];
      }
    }
    return { checked };
  };
}
