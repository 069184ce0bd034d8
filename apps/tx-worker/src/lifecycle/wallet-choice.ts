import { createHash } from "node:crypto";
import { AppError } from "@relay/core";
import type { TransactionRecord } from "@relay/db";

/**
 * A project's wallets in the order a transaction tries them: starting at a wallet picked by a hash
 * of the transaction id, then the others in address order. The same transaction always gets the
 * same order (a retry after a crash prefers the wallet it may already have started with), many
 * transactions divide evenly over the wallets, and a transaction whose preferred wallet cannot pay
 * moves on to the next one (choose-sender.ts). A wallet's own nonces stay strictly ordered by the
 * nonce table.
 */
export function walletOrder<W extends { address: string }>(wallets: W[], transactionId: string): W[] {
  if (wallets.length === 0) throw new AppError("BAD_REQUEST", "The project has no wallet to send from; create one with `npm run relay -- wallets create`");
  const sorted = [...wallets].sort((a, b) => a.address.localeCompare(b.address));
  const index = createHash("sha256").update(transactionId).digest().readUInt32BE(0) % sorted.length;
  return [...sorted.slice(index), ...sorted.slice(0, index)];
}

/** A wallet as the choice sees it: inactive and retired wallets are never chosen for a new send. */
interface Choosable {
  address: string;
  isActive: boolean;
  retiredAt: Date | null;
}

/**
 * The wallets a transaction may be sent from, in the order it tries them: a transaction that holds
 * a nonce keeps its wallet (the nonce is that wallet's), active or not, so what a deactivated or
 * retired wallet has in flight finishes. A top-up (FUNDING) is sent from its funding wallet, named
 * when it was decided, while that wallet is active. Another may use any of the project's active
 * wallets, in walletOrder; a call whose request named a wallet (fromAddress), only that one, while
 * it is active. Empty when none is active (the transaction waits); a project without any wallet is
 * an error (walletOrder).
 */
export function walletCandidates<W extends Choosable>(wallets: W[], tx: Pick<TransactionRecord, "id" | "nonce" | "fromAddress" | "kind" | "request">): W[] {
  if (tx.nonce !== null && tx.fromAddress) return wallets.filter((w) => w.address === tx.fromAddress);
  const usable = wallets.filter((w) => w.isActive && w.retiredAt === null);
  if (tx.kind === "FUNDING") return usable.filter((w) => w.address === tx.fromAddress);
  if (tx.request.fromAddress !== null) return usable.filter((w) => w.address === tx.request.fromAddress);
  // No wallet at all: walletOrder says so (final). Wallets, none active: the transaction waits.
  return wallets.length > 0 && usable.length === 0 ? [] : walletOrder(usable, tx.id);
}
