import type { WalletRecord, WalletRepository } from "@relay/db";

type Wallets = Pick<WalletRepository, "listByProject" | "findByAddress" | "listAddresses">;

/**
 * The project's wallets as the worker reads them for every transaction, remembered for `ttlMs`:
 * a wallet added with the CLI is used within that time, without a restart. An address's wallet
 * (id and project) never changes, so found ones are remembered as long as there is room.
 */
export function cachedWallets(wallets: Wallets, ttlMs: number, now: () => number = Date.now): Wallets {
  const lists = new Map<string, { at: number; value: Promise<WalletRecord[]> }>();
  const byAddress = new Map<string, WalletRecord>();
  return {
    listByProject: (projectId) => {
      const hit = lists.get(projectId);
      if (hit && now() - hit.at < ttlMs) return hit.value;
      const value = wallets.listByProject(projectId);
      if (lists.size > 10_000) lists.clear();
      lists.set(projectId, { at: now(), value });
      value.catch(() => lists.delete(projectId));
      return value;
    },
    findByAddress: async (address) => {
      const hit = byAddress.get(address);
      if (hit) return hit;
      const wallet = await wallets.findByAddress(address);
      if (wallet) {
        if (byAddress.size > 10_000) byAddress.clear();
        byAddress.set(address, wallet);
      }
      return wallet;
    },
    listAddresses: (page) => wallets.listAddresses(page),
  };
}
