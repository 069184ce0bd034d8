import type { WalletRow } from "./types";

/**
 * The relay's next nonce against the chain's, as the wallets page marks it:
 * - `in-flight`: the relay has handed out nonces the chain's node has not seen yet (its pending
 *   nonce is behind): transactions being signed or sent;
 * - `reconcile`: the chain has mined nonces the relay has not handed out: the wallet sent outside
 *   the relay (or the relay has not sent there yet with an imported history); the relay's nonce
 *   reconciler brings it level;
 * - `level`: they agree; `unknown`: the chain's nonce has not been read yet.
 * The chain's figure is up to a minute old, so a gap while sends go on is expected.
 */
export type NonceGap = { kind: "unknown" } | { kind: "level" } | { kind: "in-flight"; count: number } | { kind: "reconcile"; count: number };

export function nonceGap(row: Pick<WalletRow, "nonce" | "chainNonce">): NonceGap {
  const chain = row.chainNonce;
  if (!chain) return { kind: "unknown" };
  if (chain.latest > row.nonce) return { kind: "reconcile", count: chain.latest - row.nonce };
  if (row.nonce > chain.pending) return { kind: "in-flight", count: row.nonce - chain.pending };
  return { kind: "level" };
}
