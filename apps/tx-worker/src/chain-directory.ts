import type { JsonRpcProvider } from "ethers";
import { AppError } from "@relay/core";
import type { ChainRecord, ChainRepository } from "@relay/db";
import type { Providers } from "@relay/chain";

export interface ChainHandle {
  record: ChainRecord;
  provider: JsonRpcProvider;
}

/**
 * Chains as the database has them, re-read every `refreshMs`, so a chain added or changed with
 * the CLI reaches running workers without a restart.
 */
export function createChainDirectory(deps: { chains: Pick<ChainRepository, "findById">; providers: Providers; refreshMs?: number; now?: () => number }) {
  const now = deps.now ?? Date.now;
  const cache = new Map<string, { record: ChainRecord; readAt: number }>();

  return {
    get: async (chainId: bigint): Promise<ChainHandle> => {
      const key = chainId.toString();
      let entry = cache.get(key);
      if (!entry || now() - entry.readAt > (deps.refreshMs ?? 30_000)) {
        const record = await deps.chains.findById(chainId);
        if (!record) throw new AppError("BAD_REQUEST", `Chain ${chainId} is not configured`);
        if (record.rpcUrls.length === 0) throw new AppError("CONFIG", `Chain ${chainId} has no RPC URL`);
        entry = { record, readAt: now() };
        cache.set(key, entry);
      }
      return { record: entry.record, provider: deps.providers.get(chainId, entry.record.rpcUrls[0] as string) };
    },
  };
}

export type ChainDirectory = ReturnType<typeof createChainDirectory>;
