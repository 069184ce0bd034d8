import { createHash } from "node:crypto";
import { AppError } from "@relay/core";

/**
 * Spreads a project's transactions over its wallets: the same transaction always lands on the
 * same wallet (a retry after a crash picks the one it may already have started with), and many
 * transactions divide evenly. A wallet's own nonces stay strictly ordered by the nonce table.
 */
export function chooseWallet<W extends { address: string }>(wallets: W[], transactionId: string): W {
  if (wallets.length === 0) throw new AppError("BAD_REQUEST", "The project has no wallet to send from; create one with `relay wallets create`");
  const sorted = [...wallets].sort((a, b) => a.address.localeCompare(b.address));
  const index = createHash("sha256").update(transactionId).digest().readUInt32BE(0) % sorted.length;
  return sorted[index] as W;
}
