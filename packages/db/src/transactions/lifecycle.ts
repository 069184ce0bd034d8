import { AppError } from "@relay/core";
import { TransactionStatus as Statuses } from "../generated/enums";

/**
 * The lifecycle of a transaction (docs/transactions.md): the statuses come from the Postgres enum
 * in schema.prisma, the allowed moves are the table below and nowhere else. Workers compute the
 * next status; the repository applies it only if it is in this table.
 */
export type TransactionStatus = Statuses;

export const TRANSACTION_STATUSES: readonly TransactionStatus[] = Object.values(Statuses);

// Typed over every status, so a status added to the enum does not compile until it is placed here.
const MOVES: { readonly [S in TransactionStatus]: readonly TransactionStatus[] } = {
  // PENDING → PENDING is the note that the node refused the signed attempt on its fees and the
  // chain's fee cap leaves no room for a new one.
  PENDING: ["PENDING", "SUBMITTED", "INVALID", "PAUSED", "FAILED"],
  // Back to PENDING when the wallet is funded again.
  PAUSED: ["PENDING", "FAILED"],
  // SUBMITTED → SUBMITTED is a replacement attempt with the same nonce and higher fees, or the
  // note that the chain's fee cap leaves no room for one.
  SUBMITTED: ["SUBMITTED", "CONFIRMED", "REVERTED", "FAILED"],
  CONFIRMED: [],
  REVERTED: [],
  INVALID: [],
  FAILED: [],
};

/** Statuses nothing moves out of: CONFIRMED, REVERTED, INVALID, FAILED. */
export const FINAL_STATUSES: readonly TransactionStatus[] = TRANSACTION_STATUSES.filter((s) => MOVES[s].length === 0);

/** What the reconciler looks after: PENDING, SUBMITTED, PAUSED. */
export const UNFINISHED_STATUSES: readonly TransactionStatus[] = TRANSACTION_STATUSES.filter((s) => MOVES[s].length > 0);

/** FINAL_STATUSES as a type; every other status is unfinished, so a new one needs a step to compile. */
export type FinalStatus = Extract<TransactionStatus, "CONFIRMED" | "REVERTED" | "INVALID" | "FAILED">;
export type UnfinishedStatus = Exclude<TransactionStatus, FinalStatus>;

/**
 * Statuses whose reason is kept in the transaction's `error` column (why it did not, or not yet,
 * succeed); moving to any other status clears it.
 */
export const ERROR_STATUSES: readonly TransactionStatus[] = ["INVALID", "PAUSED", "REVERTED", "FAILED"];

export const isFinal = (status: TransactionStatus): status is FinalStatus => MOVES[status].length === 0;

export const nextStatuses = (from: TransactionStatus): readonly TransactionStatus[] => MOVES[from];

export const canMove = (from: TransactionStatus, to: TransactionStatus): boolean => MOVES[from].includes(to);

/** A move outside the table is a bug in the caller, never a condition a retry can change. */
export function assertCanMove(from: TransactionStatus, to: TransactionStatus): void {
  if (!canMove(from, to)) {
    throw new AppError("INTERNAL", `A transaction cannot move from ${from} to ${to}`, { retryable: false });
  }
}
