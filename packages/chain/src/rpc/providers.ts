import { Network, type JsonRpcProvider } from "ethers";
import { NativeJsonRpcProvider, type WrongChainListener } from "./native-json-provider";

/**
 * Calls made within this many ms of each other go to the node as one JSON-RPC batch (at most
 * BATCH_MAX_COUNT): one HTTP request instead of one each. Measured against anvil here, a call then
 * costs 28 µs of the worker's CPU and 12 µs of the node's, against 284 and 36 µs alone; a slow
 * call holds the others of its batch, and the stall adds at most this much latency (a block takes a thousand times longer).
 */
const BATCH_STALL_MS = 5;
const BATCH_MAX_COUNT = 100;

/**
 * One JSON-RPC provider per chain and list of URLs (the first, then the others as fallbacks). No response cache (`cacheTimeout: -1`): a balance or
 * receipt read right after a send must be fresh (DESIGN.md); what may be shared for a block is
 * shared explicitly (apps/tx-worker's chain view). Concurrent calls are batched, and the network
 * is fixed from the chain record instead of asked for.
 */
export function createProviders(options: { timeoutMs: number; onWrongChain?: WrongChainListener } = { timeoutMs: 10_000 }) {
  const providers = new Map<string, JsonRpcProvider>();
  return {
    get: (chainId: bigint, rpcUrl: string | readonly string[]): JsonRpcProvider => {
      const key = `${chainId}|${([] as string[]).concat(rpcUrl).join(" ")}`;
      let provider = providers.get(key);
      if (!provider) {
        // ethers' default request time-out is five minutes; a stuck node must fail fast instead.
        provider = new NativeJsonRpcProvider(
          rpcUrl,
          options.timeoutMs,
          Network.from(chainId),
          {
            staticNetwork: Network.from(chainId),
            cacheTimeout: -1,
            batchMaxCount: BATCH_MAX_COUNT,
            batchStallTime: BATCH_STALL_MS,
            polling: false,
          },
          Date.now,
          options.onWrongChain,
        );
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
