import { randomBytes } from "node:crypto";
import { Transaction, Wallet, hexlify } from "ethers";
import type { AnvilInstance } from "@relay/testing";
import { observeChain, blockStats } from "./chain-observer";
import { benchProvider, fund } from "./relay";

export interface CeilingResult {
  pushed: number;
  refused: string[];
  /** From the first raw transaction pushed to the last receipt seen. */
  seconds: number;
  mined: number;
  perSecond: number;
  blocks: ReturnType<typeof blockStats>;
}

/** JSON-RPC batches of this many raw transactions, this many batches in flight. */
const BATCH = 200;
const IN_FLIGHT = 4;

/**
 * The chain's own ceiling for a load: the same calls, signed beforehand from `wallets` fresh
 * wallets (nonces, fees and gas fixed up front), pushed to the node with
 * eth_sendRawTransaction in JSON-RPC batches as fast as it takes them, and followed to their
 * receipts (one eth_getBlockReceipts per block). No signing, estimating or bookkeeping is in the
 * measured time: what is left is what the node itself can take and mine.
 */
export async function measureCeiling(
  anvil: AnvilInstance,
  options: { count: number; wallets: number; to: string; data: (i: number) => string; timeoutMs: number },
): Promise<CeilingResult> {
  const provider = benchProvider(anvil);
  const wallets = Array.from({ length: options.wallets }, () => new Wallet(hexlify(randomBytes(32))));
  await fund(anvil, wallets.map((w) => w.address));
  // Gas: the first call's estimate with half again as much headroom (a call's cost varies with
  // the state the calls before it leave), the same limit for all.
  const gasLimit = ((await provider.estimateGas({ from: wallets[0]!.address, to: options.to, data: options.data(0) })) * 3n) / 2n;
  const head = await provider.getBlock("latest");
  const tip = 1_000_000_000n;
  // Twice today's base fee plus the tip: room for the base fee to rise while the load lands.
  const maxFeePerGas = (head?.baseFeePerGas ?? 1_000_000_000n) * 2n + tip;

  // Call i from wallet i mod W at that wallet's next nonce, in the order they are pushed.
  const raw: string[] = [];
  const hashes: string[] = [];
  for (let i = 0; i < options.count; i++) {
    const wallet = wallets[i % options.wallets]!;
    const tx = Transaction.from({
      type: 2,
      chainId: BigInt(anvil.chainId),
      nonce: Math.floor(i / options.wallets),
      to: options.to,
      data: options.data(i),
      gasLimit,
      maxFeePerGas,
      maxPriorityFeePerGas: tip,
    });
    tx.signature = wallet.signingKey.sign(tx.unsignedHash);
    raw.push(tx.serialized);
    hashes.push(tx.hash!.toLowerCase());
  }

  const refused: string[] = [];
  const observer = observeChain(provider, { receipts: true, intervalMs: 20 });
  const t0 = performance.now();
  let next = 0;
  const pusher = async () => {
    while (next < raw.length) {
      const first = next;
      next += BATCH;
      const body = raw.slice(first, first + BATCH).map((r, k) => ({ jsonrpc: "2.0", id: first + k, method: "eth_sendRawTransaction", params: [r] }));
      const answers = (await (await fetch(anvil.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })).json()) as {
        error?: { message: string };
      }[];
      for (const a of answers) if (a.error && refused.length < 5) refused.push(a.error.message);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, pusher));

  const deadline = Date.now() + options.timeoutMs;
  let seen = 0;
  while (Date.now() < deadline) {
    seen = hashes.filter((h) => observer.statuses.has(h)).length;
    if (seen >= hashes.length) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  await observer.stop();
  provider.destroy();
  const times = hashes.map((h) => observer.statuses.get(h)?.seenAt).filter((t): t is number => t !== undefined);
  const seconds = times.length ? (Math.max(...times) - t0) / 1000 : NaN;
  return { pushed: raw.length, refused, seconds, mined: times.length, perSecond: times.length / seconds, blocks: blockStats(observer.blocks) };
}
