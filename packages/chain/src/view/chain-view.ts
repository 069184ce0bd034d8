import type { JsonRpcProvider } from "ethers";
import type { Logger } from "@relay/core";
import { readMarket, withinCaps, type FeeCaps, type Fees, type Market } from "../fees/fees";
import { simulateCalls, type CallToSimulate, type SimulatedCall } from "../rpc/simulate-calls";
import { createCodePresence } from "./code-presence";
import { createReceiptIndex, type ChainBlock, type MinedReceipt } from "./receipt-index";
import { sharedValue, sharedValues } from "./shared-value";

/** What a chain view reads of its chain's settings; a change of any of them calls for a new view. */
export interface ChainViewSettings extends FeeCaps {
  chainId: bigint;
  /** The chain's time between blocks: how long a value read from it stays fresh. */
  blockTimeMs: number;
}

/**
 * What a worker knows of one chain, shared by all its jobs for a fraction of a block: the head,
 * fee prices, wallets' pending nonces and balances, and receipts (receipt-index.ts). With hundreds
 * of transactions in flight, asking the node for each of these per transaction costs eight calls
 * per transaction (docs/benchmarks.md); none of them changes faster than a block.
 *
 * Freshness: at most half a block time old, and at most a second; a balance after a send that
 * became final is read once the head has reached that send's block.
 */
export function createChainView(chain: ChainViewSettings, provider: JsonRpcProvider, logger: Logger, now: () => number = Date.now) {
  const freshMs = Math.max(100, Math.min(chain.blockTimeMs / 2, 1000));
  const head = sharedValue(freshMs, () => provider.getBlockNumber(), now);
  const market = sharedValue(freshMs, () => readMarket(provider), now);
  const pendingNonce = sharedValues(freshMs, async (address: string) => BigInt(await provider.getTransactionCount(address, "pending")), now);
  const balance = sharedValues(freshMs, (address: string) => provider.getBalance(address), now);
  // Moves by at most 1/1024 a block: ten seconds old is fresh enough to size a gas limit by.
  const blockGasLimit = sharedValue(Math.max(freshMs, 10_000), async () => {
    const block = await provider.getBlock("latest");
    if (!block) throw new Error("the node has no latest block");
    return block.gasLimit;
  }, now);
  const countAt = async (key: string) => {
    const [address, block] = key.split("@") as [string, string];
    return BigInt(await provider.getTransactionCount(address, block === "latest" ? block : Number(block)));
  };
  // A wallet's count at a numbered block does not change (a reorganisation aside): every job that
  // sizes a gas limit against that block shares one read, instead of one every freshMs.
  const nonceAtBlock = sharedValues(Math.max(10_000, 10 * chain.blockTimeMs), countAt, now);
  const nonceAtLatest = sharedValues(freshMs, countAt, now);
  /** Whether the node answers eth_simulateV1; asked by the first simulation, then remembered. */
  let simulatesInOrder = true;
  /** The last balance read per wallet, with the head it was read at and when. */
  const balanceAt = new Map<string, { head: number; at: number; value: Promise<BalanceAt> }>();
  // A yes for an hour; a no for one block, the soonest a contract deployed meanwhile is seen.
  const hasCode = createCodePresence(provider, { presentMs: 3_600_000, absentMs: Math.max(1_000, chain.blockTimeMs) }, now);
  const receipts = createReceiptIndex({
    provider,
    head,
    logger: logger.child({ chainId: chain.chainId.toString() }),
    // Database and worker clocks, plus a block for the head this process saw to be that old.
    marginMs: 5_000 + chain.blockTimeMs,
    now,
  });

  return {
    chain,
    provider,
    /** The latest block number. */
    head,
    /** The latest block's gas limit: no transaction's gas limit may be above it. */
    blockGasLimit,
    /** Fees for a new transaction (EIP-1559 or legacy, within the chain's caps). */
    fees: async (): Promise<Fees> => withinCaps((await market()).fees, chain),
    /** The market before any cap (the same read as `fees`): what a cap is held against. */
    market: (): Promise<Market> => market(),
    /** The wallet's pending nonce on chain: a floor for the nonces handed out from Postgres. */
    pendingNonce,
    /** How many transactions of the wallet are mined at `block`: the nonce its next one there uses. */
    nonceAt: (address: string, block: BlockTag): Promise<bigint> => (block === "latest" ? nonceAtLatest : nonceAtBlock)(`${address}@${block}`),
    /**
     * `calls` run one after another on top of `block`; null when the node has no eth_simulateV1
     * (it is then not asked again by this view).
     */
    simulateInOrder: async (calls: readonly CallToSimulate[], block: BlockTag): Promise<SimulatedCall[] | null> => {
      if (!simulatesInOrder) return null;
      const outcome = await simulateCalls(provider, calls, block, await blockGasLimit());
      if (outcome === null) {
        simulatesInOrder = false;
        logger.warn({ chainId: chain.chainId.toString() }, "the node has no eth_simulateV1: gas limits are sized against its pending state instead (docs/transactions.md)");
      }
      return outcome;
    },
    balance,
    /** The wallet's balance at a block at or past `block` (a send in that block counted), and that block. */
    balanceAfter: async (address: string, block: number): Promise<BalanceAt> => {
      const known = balanceAt.get(address);
      if (known && known.head >= block && now() - known.at < freshMs) return known.value;
      // Read at a block number, not "latest": the check records which block it saw.
      const current = Math.max(await head(), block);
      const value = provider.getBalance(address, current).then((balanceWei) => ({ balanceWei, blockNumber: current }));
      if (balanceAt.size > 10_000) balanceAt.clear();
      balanceAt.set(address, { head: current, at: now(), value });
      value.catch(() => balanceAt.delete(address));
      return value;
    },
    /** Whether `address` holds contract code (code-presence.ts): one eth_getCode per address, kept. */
    hasCode,
    /** The blocks after `after` up to the head, with their transactions' hashes (receipt-index.ts). */
    blocksAfter: (after: number): Promise<{ blocks: ChainBlock[]; restarts: number }> => receipts.blocksAfter(after),
    receiptOf: (hash: string, sentAt: Date): Promise<MinedReceipt | null> => receipts.receiptOf(hash, sentAt),
    freshReceiptOf: (hash: string): Promise<MinedReceipt | null> => receipts.freshReceiptOf(hash),
  };
}

export type ChainView = ReturnType<typeof createChainView>;

/** A block by number, or the latest on a node that keeps no past state. */
export type BlockTag = number | "latest";

/** A wallet's balance and the block it was read at. */
export interface BalanceAt {
  balanceWei: bigint;
  blockNumber: number;
}
