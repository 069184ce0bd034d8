import type { JsonRpcProvider } from "ethers";
import { toError, type Logger } from "@relay/core";

/** What following a transaction needs of its receipt, and what the relay records of it once final. */
export interface MinedReceipt {
  hash: string;
  blockNumber: number;
  /** 1 succeeded, 0 reverted. */
  status: number;
  blockHash: string;
  gasUsed: bigint;
  /** Null from a node whose receipts have no effectiveGasPrice (before EIP-1559). */
  effectiveGasPrice: bigint | null;
  /** The L1 data fee, on chains whose receipts report one (OP Stack's `l1Fee`); null elsewhere. */
  l1Fee: bigint | null;
  logCount: number;
}

export interface ReceiptIndexOptions {
  provider: JsonRpcProvider;
  /** The latest block number, as the chain view shares it. */
  head: () => Promise<number>;
  /** Blocks kept in the index; older ones are looked up one hash at a time. */
  keepBlocks?: number;
  /** A head further ahead than this of the last indexed block restarts the index there. */
  maxCatchUpBlocks?: number;
  /**
   * How long an attempt must have been out after the index began covering the chain before its
   * absence from the index means "not mined": clocks of the database and this process differ.
   */
  marginMs: number;
  logger: Logger;
  now?: () => number;
}

interface RawReceipt {
  transactionHash?: string;
  blockNumber?: string;
  blockHash?: string;
  status?: string;
  gasUsed?: string;
  effectiveGasPrice?: string;
  l1Fee?: string | null;
  logs?: unknown[];
}

const quantity = (value: string | null | undefined): bigint | null => (typeof value === "string" && value !== "" ? BigInt(value) : null);

/** A node's receipt (eth_getBlockReceipts, eth_getTransactionReceipt) as a MinedReceipt. */
export function toMinedReceipt(raw: RawReceipt, hash: string, blockNumber: number, blockHash: string): MinedReceipt {
  return {
    hash,
    blockNumber,
    status: Number(raw.status ?? "0x0"),
    blockHash,
    gasUsed: quantity(raw.gasUsed) ?? 0n,
    effectiveGasPrice: quantity(raw.effectiveGasPrice),
    l1Fee: quantity(raw.l1Fee),
    logCount: Array.isArray(raw.logs) ? raw.logs.length : 0,
  };
}

interface RawHeader {
  hash?: string;
  parentHash?: string;
  /** Hashes only: the block read without full transactions. */
  transactions?: string[];
}

/** A block the chain has: its number and hash, and the hashes of its transactions. */
export interface ChainBlock {
  number: number;
  blockHash: string;
  hashes: string[];
}

/** Reorganisations met within one refresh before it gives up (see refresh). */
const MAX_RESTARTS_PER_REFRESH = 3;

/**
 * Blocks read again below the head after a reorganisation: the new branch's blocks, so that a
 * transaction mined again in one of them is found there (by the block follower too).
 */
const REREAD_AFTER_REORG = 8;

/** A block that does not follow the one indexed before it: the chain was reorganised. */
class ReorganisedError extends Error {}

/**
 * Receipts of one chain, one `eth_getBlockReceipts` per new block for all the
 * transactions waiting on it, instead of one `eth_getTransactionReceipt` per transaction per look.
 *
 * The index covers the chain from the block it started at: an attempt broadcast after that (with
 * a margin for clock differences) and not in the index is not mined yet. For anything older (the
 * worker restarted, the index fell behind and restarted, or the block was pruned) the receipt is
 * looked up by hash. A node without `eth_getBlockReceipts` is asked by hash only.
 */
export function createReceiptIndex(options: ReceiptIndexOptions) {
  const now = options.now ?? Date.now;
  const keepBlocks = options.keepBlocks ?? 256;
  const maxCatchUp = options.maxCatchUpBlocks ?? 32;
  const byHash = new Map<string, MinedReceipt>();
  /**
   * Per indexed block: its hash, its transactions, and when this process first saw it as the head
   * or older.
   */
  const blocks = new Map<number, { blockHash: string; hashes: string[]; seenAt: number }>();
  /** Blocks indexed so far: (first, last], once started. */
  let started = false;
  let first = 0;
  let last = 0;
  /**
   * An attempt sent after this was mined, if at all, in an indexed block: by then block first + 1
   * existed, so anything sent later goes into a later block.
   */
  const coveredSince = () => blocks.get(first + 1)?.seenAt ?? Number.POSITIVE_INFINITY;
  let supported = true;
  let refreshing: Promise<void> | undefined;

  /** Restarts so far: a reader of blocksAfter that saw another count reads the kept blocks again. */
  let restarts = 0;
  const restartAt = (block: number) => {
    byHash.clear();
    blocks.clear();
    first = block;
    last = block;
    started = true;
    restarts++;
  };

  /**
   * Reads one block's receipts with its header (one JSON-RPC batch). The header chains it to the
   * block indexed before it: a parent hash that differs means the blocks indexed so far are no
   * longer the chain (a reorganisation), and receipts read from them may be moved or gone.
   */
  const indexBlock = async (block: number, seenAt: number) => {
    const tag = `0x${block.toString(16)}`;
    const [raw, header] = (await Promise.all([
      options.provider.send("eth_getBlockReceipts", [tag]),
      options.provider.send("eth_getBlockByNumber", [tag, false]),
    ])) as [RawReceipt[] | null, RawHeader | null];
    if (!raw || !header?.hash || !header.parentHash) throw new Error(`block ${block} has no receipts yet`);
    const blockHash = header.hash.toLowerCase();
    // Both answers must be of the same block (a reorganisation can fall between them).
    if (raw.some((r) => r.blockHash && r.blockHash.toLowerCase() !== blockHash)) throw new ReorganisedError(`block ${block} changed while it was read`);
    const parent = blocks.get(block - 1);
    if (parent && parent.blockHash !== header.parentHash.toLowerCase()) throw new ReorganisedError(`block ${block - 1} was replaced`);
    const hashes: string[] = [];
    for (const r of raw) {
      if (!r.transactionHash) continue;
      const hash = r.transactionHash.toLowerCase();
      byHash.set(hash, toMinedReceipt(r, hash, block, blockHash));
      hashes.push(hash);
    }
    blocks.set(block, { blockHash, hashes, seenAt });
    last = block;
    const pruned = last - keepBlocks;
    for (let b = first + 1; b <= pruned; b++) {
      for (const hash of blocks.get(b)?.hashes ?? []) byHash.delete(hash);
      blocks.delete(b);
    }
    if (pruned > first) first = pruned;
  };

  const refresh = async () => {
    const head = await options.head();
    const seenAt = now();
    if (!started || head - last > maxCatchUp) restartAt(head - 1);
    let restarts = 0;
    while (last < head) {
      try {
        await indexBlock(last + 1, seenAt);
      } catch (e) {
        if (!(e instanceof ReorganisedError)) throw e;
        // A node whose answers never agree (receipts and header of different blocks every time,
        // a backend stuck on a fork behind a balancer) would keep this loop, and every look-up
        // waiting on it, going for ever: after a few restarts, this refresh gives up (the index
        // restarts at the next look; until then receipts are looked up by hash).
        if (++restarts > MAX_RESTARTS_PER_REFRESH) throw new Error(`the chain reorganised ${restarts} times while one block was read: ${e.message}`);
        // Start again from the head: attempts sent before are looked up by hash, as the node has
        // them now; the blocks of the new branch are read as they come.
        options.logger.warn({ block: last + 1, reason: e.message }, "chain reorganised: receipt index restarted");
        restartAt(Math.max(head - REREAD_AFTER_REORG, -1));
      }
    }
  };

  const catchUp = (): Promise<void> => {
    refreshing ??= refresh()
      .catch((e: unknown) => {
        const error = toError(e);
        if (/method not found|not supported|does not exist|unsupported|-32601/i.test(error.message)) {
          supported = false;
          options.logger.warn({ err: error.message }, "the node has no eth_getBlockReceipts: receipts are looked up one by one");
        } else {
          // The index is behind; restart it at the next look rather than trusting a gap.
          started = false;
          options.logger.warn({ err: error.message }, "receipt index could not catch up; restarting it");
        }
      })
      .finally(() => {
        refreshing = undefined;
      });
    return refreshing;
  };

  const byHashLookup = async (hash: string): Promise<MinedReceipt | null> => {
    // Raw, not ethers' getTransactionReceipt: its receipt drops fields it does not know (l1Fee).
    const raw = (await options.provider.send("eth_getTransactionReceipt", [hash])) as RawReceipt | null;
    if (!raw?.blockNumber || !raw.blockHash) return null;
    return toMinedReceipt(raw, hash.toLowerCase(), Number(raw.blockNumber), raw.blockHash.toLowerCase());
  };

  /** Blocks (after, head], at most maxCatchUp of the newest, read one header each (hashes only). */
  const headersAfter = async (after: number): Promise<ChainBlock[]> => {
    const head = await options.head();
    const from = Math.max(after + 1, head - maxCatchUp + 1);
    const numbers = Array.from({ length: Math.max(0, head - from + 1) }, (_, i) => from + i);
    const headers = (await Promise.all(numbers.map((n) => options.provider.send("eth_getBlockByNumber", [`0x${n.toString(16)}`, false])))) as (RawHeader | null)[];
    return headers.flatMap((header, i) =>
      header?.hash ? [{ number: numbers[i]!, blockHash: header.hash.toLowerCase(), hashes: (header.transactions ?? []).map((h) => h.toLowerCase()) }] : [],
    );
  };

  return {
    /**
     * The blocks after `after` up to the head, oldest first, with their transactions' hashes: what
     * the index read (their receipts are then answered by receiptOf without another call), or on a
     * node without eth_getBlockReceipts one header per block. At most the blocks the index keeps.
     * `restarts` counts the index's restarts (a reorganisation, a long gap): when it changed, the
     * blocks kept may be of another branch at numbers already read, and are read again from 0.
     */
    blocksAfter: async (after: number): Promise<{ blocks: ChainBlock[]; restarts: number }> => {
      if (supported) await catchUp();
      if (!supported) return { blocks: await headersAfter(after), restarts };
      const found: ChainBlock[] = [];
      for (let b = Math.max(after, first) + 1; started && b <= last; b++) {
        const block = blocks.get(b);
        if (block) found.push({ number: b, blockHash: block.blockHash, hashes: block.hashes });
      }
      return { blocks: found, restarts };
    },
    /**
     * The receipt of `hash`, or null while it is not mined. `sentAt`: when the attempt was
     * (first) broadcast, or stored if it never was.
     */
    receiptOf: async (hash: string, sentAt: Date): Promise<MinedReceipt | null> => {
      if (!supported) return byHashLookup(hash);
      await catchUp();
      const known = byHash.get(hash.toLowerCase());
      if (known) return known;
      const covered = started && sentAt.getTime() >= coveredSince() + options.marginMs;
      return covered ? null : byHashLookup(hash);
    },
    /** A receipt as the node has it now, by hash (to check a block is still canonical). */
    freshReceiptOf: byHashLookup,
  };
}

export type ReceiptIndex = ReturnType<typeof createReceiptIndex>;
