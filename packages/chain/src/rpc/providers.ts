import { FetchRequest, JsonRpcProvider, Network } from "ethers";

/**
 * One JSON-RPC provider per chain and URL. No response cache (`cacheTimeout: -1`): a balance or
 * receipt read right after a send must be fresh (DESIGN.md), no batching (a slow call must not
 * hold others), and the network is fixed from the chain record instead of asked for.
 */
export function createProviders(options: { timeoutMs: number } = { timeoutMs: 10_000 }) {
  const providers = new Map<string, JsonRpcProvider>();
  return {
    get: (chainId: bigint, rpcUrl: string): JsonRpcProvider => {
      const key = `${chainId}|${rpcUrl}`;
      let provider = providers.get(key);
      if (!provider) {
        // ethers' default request time-out is five minutes; a stuck node must fail fast instead.
        const request = new FetchRequest(rpcUrl);
        request.timeout = options.timeoutMs;
        provider = new JsonRpcProvider(request, Network.from(chainId), {
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
