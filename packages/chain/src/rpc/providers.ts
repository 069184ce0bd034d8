import { JsonRpcProvider, Network } from "ethers";

/**
 * One JSON-RPC provider per chain and URL. No response cache (`cacheTimeout: -1`): a balance or
 * receipt read right after a send must be fresh (DESIGN.md), no batching (a slow call must not
 * hold others), and the network is fixed from the chain record instead of asked for.
 */
export function createProviders() {
  const providers = new Map<string, JsonRpcProvider>();
  return {
    get: (chainId: bigint, rpcUrl: string): JsonRpcProvider => {
      const key = `${chainId}|${rpcUrl}`;
      let provider = providers.get(key);
      if (!provider) {
        provider = new JsonRpcProvider(rpcUrl, Network.from(chainId), {
          staticNetwork: Network.from(chainId),
          cacheTimeout: -1,
          batchMaxCount: 1,
          polling: false,
        });
        providers.set(key, provider);
      }
      return provider;
    },
    destroy: () => {
      for (const provider of providers.values()) provider.destroy();
      providers.clear();
    },
  };
}

export type Providers = ReturnType<typeof createProviders>;
