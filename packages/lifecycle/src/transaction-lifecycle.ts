import { AppError } from "@relay/core";

/**
 * The lifecycle of a transaction (docs/transactions.md): its statuses and the table of allowed
 * moves, here and nowhere else. Workers compute the next status; the repository applies it only
 * if it is in this table. The Postgres enum in prisma/schema.prisma must name the same statuses in
 * the same order (a test in packages/db holds them together); the order is also the one the
 * OpenAPI document lists.
 */
export const TRANSACTION_STATUSES = ["PENDING", "SUBMITTED", "CONFIRMED", "REVERTED", "INVALID", "PAUSED", "FAILED", "CANCELLED", "EXPIRED"] as const;

export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

// Typed over every status, so a status added to the list does not compile until it is placed here.
const MOVES = {
  // PENDING → PENDING is the note that the node refused the signed attempt on its fees and the
  // chain's fee cap leaves no room for a new one. → CANCELLED: cancelled before anything was sent.
  // → EXPIRED: its expiresAt passed before it was signed (never broadcast).
  PENDING: ["PENDING", "SUBMITTED", "INVALID", "PAUSED", "FAILED", "CANCELLED", "EXPIRED"],
  // Back to PENDING when the wallet is funded again; CANCELLED and EXPIRED as from PENDING.
  PAUSED: ["PENDING", "FAILED", "CANCELLED", "EXPIRED"],
  // SUBMITTED → SUBMITTED is a replacement attempt with the same nonce and higher fees, or the
  // note that the chain's fee cap leaves no room for one. → CANCELLED: the zero-value
  // self-transfer a cancel sent at its nonce was mined instead of it.
  SUBMITTED: ["SUBMITTED", "CONFIRMED", "REVERTED", "FAILED", "CANCELLED"],
  CONFIRMED: [],
  REVERTED: [],
  INVALID: [],
  FAILED: [],
  CANCELLED: [],
  EXPIRED: [],
} as const satisfies { readonly [S in TransactionStatus]: readonly TransactionStatus[] };

/** Statuses something moves out of: PENDING, SUBMITTED, PAUSED. Each needs a worker's step. */
export type UnfinishedStatus = { [S in TransactionStatus]: (typeof MOVES)[S] extends readonly [] ? never : S }[TransactionStatus];

/** Statuses nothing moves out of: CONFIRMED, REVERTED, INVALID, FAILED, CANCELLED, EXPIRED. */
export type FinalStatus = Exclude<TransactionStatus, UnfinishedStatus>;

export const nextStatuses = (from: TransactionStatus): readonly TransactionStatus[] => MOVES[from];

export const isFinal = (status: TransactionStatus): status is FinalStatus => nextStatuses(status).length === 0;

export const FINAL_STATUSES: readonly TransactionStatus[] = TRANSACTION_STATUSES.filter(isFinal);

/** What the reconciler looks after. */
export const UNFINISHED_STATUSES: readonly UnfinishedStatus[] = TRANSACTION_STATUSES.filter((s): s is UnfinishedStatus => !isFinal(s));

/**
 * Statuses whose reason is kept in the transaction's `error` column (why it did not, or not yet,
 * succeed); moving to any other status clears it.
 */
export const ERROR_STATUSES: readonly TransactionStatus[] = ["INVALID", "PAUSED", "REVERTED", "FAILED", "EXPIRED"];

export const canMove = (from: TransactionStatus, to: TransactionStatus): boolean => nextStatuses(from).includes(to);

/** A move outside the table is a bug in the caller, never a condition a retry can change. */
export function assertCanMove(from: TransactionStatus, to: TransactionStatus): void {
  if (!canMove(from, to)) {
    throw new AppError("INTERNAL", `A transaction cannot move from ${from} to ${to}`, { retryable: false });
  }
}
