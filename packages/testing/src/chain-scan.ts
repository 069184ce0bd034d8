import { JsonRpcProvider, toQuantity } from "ethers";

/** A transaction as a block holds it: what really went on chain, whatever the database says. */
export interface MinedTransaction {
  hash: string;
  /** Lower-case. */
  from: string;
  /** Lower-case; null for a contract creation. */
  to: string | null;
  nonce: number;
  input: string;
  blockNumber: number;
}

interface RpcTransaction {
  hash: string;
  from: string;
  to: string | null;
  nonce: string;
  input: string;
  blockNumber: string;
}

/** Every transaction in blocks `fromBlock`..latest (eth_getBlockByNumber with full transactions). */
export async function minedTransactions(rpcUrl: string, fromBlock = 0): Promise<MinedTransaction[]> {
  const provider = new JsonRpcProvider(rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1, batchMaxCount: 1 });
  try {
    const latest = await provider.getBlockNumber();
    const numbers = Array.from({ length: Math.max(0, latest - fromBlock + 1) }, (_, i) => fromBlock + i);
    const mined: MinedTransaction[] = [];
    for (let i = 0; i < numbers.length; i += 50) {
      const blocks = await Promise.all(
        numbers.slice(i, i + 50).map((n) => provider.send("eth_getBlockByNumber", [toQuantity(n), true]) as Promise<{ transactions: RpcTransaction[] }>),
      );
      for (const block of blocks) {
        for (const tx of block.transactions) {
          mined.push({
            hash: tx.hash,
            from: tx.from.toLowerCase(),
            to: tx.to?.toLowerCase() ?? null,
            nonce: Number(tx.nonce),
            input: tx.input.toLowerCase(),
            blockNumber: Number(tx.blockNumber),
          });
        }
      }
    }
    return mined;
  } finally {
    provider.destroy();
  }
}

/** How often each `to|input` pair was mined. */
export function countByCall(mined: MinedTransaction[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const tx of mined) {
    const key = callKey(tx.to ?? "", tx.input);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

export const callKey = (to: string, input: string) => `${to.toLowerCase()}|${input.toLowerCase()}`;
