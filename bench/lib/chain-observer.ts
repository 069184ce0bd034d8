import { toQuantity, type JsonRpcProvider } from "ethers";

export interface ObservedBlock {
  number: number;
  /** performance.now() when this process first saw the block. */
  seenAt: number;
  transactions: string[];
  gasUsed: bigint;
  gasLimit: bigint;
}

interface RawBlock {
  transactions: string[];
  gasUsed: string;
  gasLimit: string;
}

interface RawReceipt {
  transactionHash: string;
  status: string;
}

/**
 * Follows the chain's head every `intervalMs` and records each new block: when it was first seen,
 * its transactions and gas. With `receipts`, also the status of every transaction in each block
 * (eth_getBlockReceipts): one call per block instead of one per transaction.
 */
export function observeChain(provider: JsonRpcProvider, options: { receipts?: boolean; intervalMs?: number } = {}) {
  const blocks: ObservedBlock[] = [];
  const statuses = new Map<string, { status: number; block: number; seenAt: number }>();
  let next: number | undefined;
  let running = true;
  let failure: unknown;
  /** The observer's own JSON-RPC calls, to tell them apart from the system's in anvil's log. */
  const ownCalls = new Map<string, number>();
  const send = (method: string, params: unknown[]) => {
    ownCalls.set(method, (ownCalls.get(method) ?? 0) + 1);
    return provider.send(method, params);
  };

  const loop = (async () => {
    next = Number(await send("eth_blockNumber", [])) + 1;
    while (running) {
      try {
        const head = Number(await send("eth_blockNumber", []));
        for (; next <= head; next++) {
          const seenAt = performance.now();
          const raw = (await send("eth_getBlockByNumber", [toQuantity(next), false])) as RawBlock;
          blocks.push({ number: next, seenAt, transactions: raw.transactions, gasUsed: BigInt(raw.gasUsed), gasLimit: BigInt(raw.gasLimit) });
          if (options.receipts && raw.transactions.length > 0) {
            const receipts = (await send("eth_getBlockReceipts", [toQuantity(next)])) as RawReceipt[];
            for (const r of receipts) statuses.set(r.transactionHash.toLowerCase(), { status: Number(r.status), block: next, seenAt });
          }
        }
      } catch (e) {
        failure = e;
      }
      await new Promise((r) => setTimeout(r, options.intervalMs ?? 50));
    }
  })();

  return {
    blocks,
    /** Receipts seen so far (with `receipts`), by lower-case hash. */
    statuses,
    ownCalls,
    lastError: () => failure,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

/** Block statistics over the blocks that carried at least one transaction. */
export function blockStats(blocks: ObservedBlock[]) {
  const busy = blocks.filter((b) => b.transactions.length > 0);
  const counts = busy.map((b) => b.transactions.length);
  const fill = busy.map((b) => Number((b.gasUsed * 10_000n) / (b.gasLimit === 0n ? 1n : b.gasLimit)) / 10_000);
  return {
    blocks: busy.length,
    transactions: counts.reduce((a, b) => a + b, 0),
    maxPerBlock: Math.max(0, ...counts),
    meanPerBlock: counts.length ? counts.reduce((a, b) => a + b, 0) / counts.length : 0,
    maxFill: Math.max(0, ...fill),
    gasLimit: busy[0]?.gasLimit ?? blocks[0]?.gasLimit ?? 0n,
    first: busy[0],
    last: busy[busy.length - 1],
  };
}

/**
 * Counts the JSON-RPC methods anvil logs (one line per call, which it prints unless --quiet):
 * how many calls of each kind the system under test made.
 */
export function countRpcCalls(stdout: NodeJS.ReadableStream | null) {
  const counts = new Map<string, number>();
  let partial = "";
  let enabled = false;
  stdout?.on("data", (chunk: Buffer) => {
    const lines = (partial + chunk.toString("utf8")).split("\n");
    partial = lines.pop() ?? "";
    if (!enabled) return;
    for (const l of lines) {
      const m = /^\s*((?:eth|anvil|net|web3|evm|debug|txpool)_\w+)\s*$/.exec(l);
      if (m) counts.set(m[1]!, (counts.get(m[1]!) ?? 0) + 1);
    }
  });
  return {
    start: () => {
      counts.clear();
      enabled = true;
    },
    stop: () => {
      enabled = false;
      return new Map(counts);
    },
  };
}
