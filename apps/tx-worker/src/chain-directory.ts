import type { JsonRpcProvider } from "ethers";
import { AppError, type Logger } from "@relay/core";
import type { ChainRecord, ChainRepository } from "@relay/db";
import { createChainView, type ChainView, type ChainViewSettings, type Providers } from "@relay/chain";

export interface ChainHandle {
  record: ChainRecord;
  provider: JsonRpcProvider;
  /** What the worker's jobs share of this chain for a fraction of a block (packages/chain's view). */
  view: ChainView;
}

/** The part of a chain record its view reads. */
const viewSettings = ({ chainId, blockTimeMs, maxFeePerGasCapWei, maxPriorityFeePerGasCapWei }: ChainRecord): ChainViewSettings => ({
  chainId,
  blockTimeMs,
  maxFeePerGasCapWei,
  maxPriorityFeePerGasCapWei,
});

/** What a chain view is built from: a change of any of it builds a new view. */
const viewKey = (record: ChainRecord) => [record.rpcUrls.join(" "), ...Object.values(viewSettings(record))].map(String).join("|");

/**
 * Chains as the database has them, re-read every `refreshMs`, so a chain added or changed with
 * the CLI reaches running workers without a restart.
 */
export function createChainDirectory(deps: {
  chains: Pick<ChainRepository, "findById">;
  providers: Providers;
  logger: Logger;
  refreshMs?: number;
  now?: () => number;
}) {
  const now = deps.now ?? Date.now;
  const cache = new Map<string, { record: ChainRecord; readAt: number; view: ChainView; key: string }>();

  return {
    get: async (chainId: bigint): Promise<ChainHandle> => {
      const id = chainId.toString();
      let entry = cache.get(id);
      if (!entry || now() - entry.readAt > (deps.refreshMs ?? 30_000)) {
        const record = await deps.chains.findById(chainId);
        if (!record) throw new AppError("BAD_REQUEST", `Chain ${chainId} is not configured`);
        if (record.rpcUrls.length === 0) throw new AppError("CONFIG", `Chain ${chainId} has no RPC URL`);
        const key = viewKey(record);
        const view = entry && entry.key === key ? entry.view : createChainView(viewSettings(record), deps.providers.get(chainId, record.rpcUrls), deps.logger, now);
        entry = { record, readAt: now(), view, key };
        cache.set(id, entry);
      }
      return { record: entry.record, provider: entry.view.provider, view: entry.view };
    },
  };
}

export type ChainDirectory = ReturnType<typeof createChainDirectory>;
