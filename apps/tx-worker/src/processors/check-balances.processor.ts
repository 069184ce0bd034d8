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
 * every chain that has a threshold, so a wallet drained from outside the relay is noticed too.
 * The repository fires once per crossing, so running this on any replica, any number of times,
 * sends one event per drop.
 */
export function createCheckBalancesProcessor(deps: CheckBalancesDeps): Processor<"checkBalances"> {
  return async (_payload, { logger }) => {
    let checked = 0;
    for (const chain of (await deps.chains.list()).filter((c) => c.lowBalanceThresholdWei > 0n)) {
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
