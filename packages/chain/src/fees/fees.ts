import { AppError } from "@relay/core";

/** What pricing asks of a node; a JsonRpcProvider is one. */
export interface FeeSource {
  getBlock(tag: "latest"): Promise<{ baseFeePerGas?: bigint | null } | null>;
  send(method: string, params: unknown[]): Promise<unknown>;
}

/** Per-chain ceilings from the chain record; null = no cap. */
export interface FeeCaps {
  maxFeePerGasCapWei: bigint | null;
  maxPriorityFeePerGasCapWei: bigint | null;
}

export type Fees =
  | { type: 2; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }
  | { type: 0; gasPrice: bigint };

/** Tip when the node cannot suggest one (eth_maxPriorityFeePerGas is not standard everywhere). */
const DEFAULT_TIP_WEI = 1_000_000_000n;
/** A replacement must outbid the stuck attempt by at least this (geth requires 10 %). */
const BUMP_NUMERATOR = 1125n;
const BUMP_DENOMINATOR = 1000n;

const min = (a: bigint, b: bigint | null) => (b !== null && b < a ? b : a);
const max = (a: bigint, b: bigint) => (a > b ? a : b);
const bump = (value: bigint) => max((value * BUMP_NUMERATOR + BUMP_DENOMINATOR - 1n) / BUMP_DENOMINATOR, value + 1n);

/**
 * What the market asks now, before any cap: `fees` priced as for a new transaction (EIP-1559
 * where the latest block has a base fee: max fee = 2 × base fee + tip, which survives six full
 * blocks of base-fee growth; legacy gas price otherwise), and `floor`, the least max fee per gas
 * a transaction is included with now: base fee + tip. Null on a chain without a base fee: its
 * gas price is the node's suggestion, not a least price (less is often mined), so no cap is held
 * against it there.
 */
export interface Market {
  fees: Fees;
  floor: bigint | null;
}

/** Reads the market from the latest block and the node's suggested tip (or gas price). */
export async function readMarket(provider: FeeSource): Promise<Market> {
  const block = await provider.getBlock("latest");
  // No block is not "no base fee": priced as legacy, an EIP-1559 chain's transactions paid their
  // whole gas price, and a replacement of a type-2 attempt became legacy for good.
  if (!block) throw new AppError("UNAVAILABLE", "the node answered no latest block; fees are priced again on the next try", { retryable: true });
  if (block.baseFeePerGas !== null && block.baseFeePerGas !== undefined) {
    let tip = DEFAULT_TIP_WEI;
    try {
      tip = BigInt((await provider.send("eth_maxPriorityFeePerGas", [])) as string);
    } catch {
      // keep the default
    }
    return { fees: { type: 2, maxFeePerGas: block.baseFeePerGas * 2n + tip, maxPriorityFeePerGas: tip }, floor: block.baseFeePerGas + tip };
  }
  const gasPrice = BigInt((await provider.send("eth_gasPrice", [])) as string);
  return { fees: { type: 0, gasPrice }, floor: null };
}

/** `fees` within `caps`: the max fee (legacy: gas price) and the tip lowered to their caps. */
export function withinCaps(fees: Fees, caps: FeeCaps): Fees {
  if (fees.type === 0) return { type: 0, gasPrice: min(fees.gasPrice, caps.maxFeePerGasCapWei) };
  const maxFeePerGas = min(fees.maxFeePerGas, caps.maxFeePerGasCapWei);
  return { type: 2, maxFeePerGas, maxPriorityFeePerGas: min(min(fees.maxPriorityFeePerGas, caps.maxPriorityFeePerGasCapWei), maxFeePerGas) };
}

/** Current fees for a new transaction: the market's, within the chain's caps. */
export async function priceFees(provider: FeeSource, caps: FeeCaps): Promise<Fees> {
  return withinCaps((await readMarket(provider)).fees, caps);
}

/** The chain's caps, and a transaction's own most per gas (null: none) as a further max-fee cap. */
export const capsWith = (caps: FeeCaps, maxFeePerGasWei: bigint | null): FeeCaps => ({
  maxFeePerGasCapWei: maxFeePerGasWei === null ? caps.maxFeePerGasCapWei : min(maxFeePerGasWei, caps.maxFeePerGasCapWei),
  maxPriorityFeePerGasCapWei: caps.maxPriorityFeePerGasCapWei,
});

/**
 * The max-fee cap that keeps a transaction out of the next block: the market's floor (base fee +
 * tip, the tip within its cap) is above it. Null when the caps let it in. A transaction signed
 * under such a cap would sit in the pool, its nonce blocking the wallet's later ones.
 */
export function capBelowMarket(market: Market, caps: FeeCaps): bigint | null {
  const cap = caps.maxFeePerGasCapWei;
  const { fees } = market;
  if (cap === null || market.floor === null || fees.type !== 2) return null;
  const floor = market.floor - fees.maxPriorityFeePerGas + min(fees.maxPriorityFeePerGas, caps.maxPriorityFeePerGasCapWei);
  return floor > cap ? cap : null;
}

/**
 * How far above today's price a replacement may go: the max fee per gas (legacy: the gas price) of
 * a replacement stops at this many times today's, and lower where the chain has a cap. Without it,
 * a transaction stuck for another reason than its price (a node that does not pass it on, a halted
 * sequencer) was bid up 12.5 % every stuck period for as long as it stayed stuck: over a thousand
 * times its price after an hour. Three times is room for a base fee that doubled, and then some.
 */
export const MARKET_CEILING = 3n;

/** The highest max fee per gas (legacy: gas price) a replacement may carry today. */
export function replacementCeiling(current: Fees, caps: FeeCaps): bigint {
  return min((current.type === 2 ? current.maxFeePerGas : current.gasPrice) * MARKET_CEILING, caps.maxFeePerGasCapWei);
}

/** The ceiling in words, for a transaction's history: what stops a replacement, and where from. */
export function describeCeiling(current: Fees, caps: FeeCaps): string {
  return (
    `max fee per gas at most ${replacementCeiling(current, caps)} wei: the chain's cap ${caps.maxFeePerGasCapWei ?? "none"}, ` +
    `or ${MARKET_CEILING}× today's price; maxPriorityFeePerGas cap ${caps.maxPriorityFeePerGasCapWei ?? "none"}`
  );
}

/** The fee columns of a stored (signed) attempt. */
export interface SignedFees {
  type: number;
  maxFeePerGasWei: bigint | null;
  maxPriorityFeePerGasWei: bigint | null;
  gasPriceWei: bigint | null;
}

/** The fees a stored attempt was signed with. */
export const feesOfAttempt = (attempt: SignedFees): Fees =>
  attempt.type === 2
    ? { type: 2, maxFeePerGas: attempt.maxFeePerGasWei ?? 0n, maxPriorityFeePerGas: attempt.maxPriorityFeePerGasWei ?? 0n }
    : { type: 0, gasPrice: attempt.gasPriceWei ?? 0n };

/**
 * Whether the caps leave room for any replacement of an attempt with these fees: the smallest one
 * a node takes (every fee field 12.5 % higher) is within them. False means bumpFees returns null
 * whatever the market does, so this can be told without reading the chain.
 */
export function roomUnderCaps(previous: Fees, caps: FeeCaps): boolean {
  const fits = (value: bigint, cap: bigint | null) => cap === null || bump(value) <= cap;
  if (previous.type === 0) return fits(previous.gasPrice, caps.maxFeePerGasCapWei);
  return fits(previous.maxFeePerGas, caps.maxFeePerGasCapWei) && fits(previous.maxPriorityFeePerGas, caps.maxPriorityFeePerGasCapWei);
}

/**
 * Fees for a replacement of a stuck attempt at the same nonce: every fee field raised by at least
 * 12.5 % (and at least to today's price), within the caps and at most MARKET_CEILING times today's
 * price. Null when that leaves no room to outbid the previous attempt: the caller keeps waiting
 * (sending the attempts it has) and says so.
 */
export function bumpFees(previous: Fees, current: Fees, caps: FeeCaps): Fees | null {
  let ceiling = replacementCeiling(current, caps);
  if (previous.type === 2 && current.type === 2) {
    // A tip below today's is a reason to replace whatever the base fee did since: where the base
    // fee fell, the 12.5 % on the max fee that a replacement must also carry can pass three times
    // today's price, and the transaction (and the wallet behind it) would wait for the market.
    if (previous.maxPriorityFeePerGas < current.maxPriorityFeePerGas) ceiling = max(ceiling, min(bump(previous.maxFeePerGas), caps.maxFeePerGasCapWei));
    const maxPriorityFeePerGas = min(max(bump(previous.maxPriorityFeePerGas), current.maxPriorityFeePerGas), caps.maxPriorityFeePerGasCapWei);
    const maxFeePerGas = min(max(bump(previous.maxFeePerGas), current.maxFeePerGas), ceiling);
    if (maxPriorityFeePerGas < bump(previous.maxPriorityFeePerGas) || maxFeePerGas < bump(previous.maxFeePerGas)) return null;
    return { type: 2, maxFeePerGas, maxPriorityFeePerGas: min(maxPriorityFeePerGas, maxFeePerGas) };
  }
  const previousPrice = previous.type === 0 ? previous.gasPrice : previous.maxFeePerGas;
  const currentPrice = current.type === 0 ? current.gasPrice : current.maxFeePerGas;
  const gasPrice = min(max(bump(previousPrice), currentPrice), ceiling);
  return gasPrice < bump(previousPrice) ? null : { type: 0, gasPrice };
}

/** Most a transaction with these fees can cost in gas. */
export const maxGasCost = (fees: Fees, gasLimit: bigint): bigint =>
  gasLimit * (fees.type === 2 ? fees.maxFeePerGas : fees.gasPrice);
