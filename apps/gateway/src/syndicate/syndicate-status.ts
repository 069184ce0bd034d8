import { READ_STATUSES, type ReadStatus } from "@relay/db";
import { TRANSACTION_STATUSES, type TransactionStatus } from "@relay/lifecycle";

/**
 * Syndicate's statuses, derived from the relay's lifecycle for the Syndicate-shaped reads
 * (docs/syndicate.md, "Transactions and their attempts"). Our own endpoints and events keep our
 * statuses; this table is the only place the two meet.
 *
 * Syndicate's attempt statuses, as its "Lifecycle of a Syndicate Transaction" page defines them:
 * PENDING signed and sent to the chain; PROCESSED in a block; SUBMITTED some blocks deep;
 * CONFIRMED final; PAUSED the wallet cannot pay; ABANDONED (its OpenAPI document) given up.
 */
export const ATTEMPT_STATUSES = ["PENDING", "PROCESSED", "SUBMITTED", "CONFIRMED", "PAUSED", "ABANDONED"] as const;
export type AttemptStatus = (typeof ATTEMPT_STATUSES)[number];

/** The four numbers of getProjectTransactionStats; every request is counted in exactly one. */
export type StatsBucket = "Confirmed" | "Submitted" | "Pending" | "Failed";

/**
 * An attempt is *current* when it carries the transaction's status: the one whose hash is the
 * transaction's (the mined one once final, else the latest), or the newest while the transaction
 * has no hash yet. Every other attempt was superseded by a fee bump or lost to the mined one.
 */
export interface SyndicateView {
  /** The request's `invalid` flag: simulation refused it and nothing was sent. */
  invalid: boolean;
  /** The current attempt's status. */
  current: AttemptStatus;
  /** The current attempt's `reverted` flag (mined, and failed on chain). */
  reverted: boolean;
  /** Whether the current attempt's `block` is the transaction's block number (else 0: not known to be mined). */
  mined: boolean;
  stats: StatsBucket;
}

/** A superseded attempt was replaced or lost to another: never pending, never mined by us. */
export const SUPERSEDED: AttemptStatus = "ABANDONED";

// Typed over every status: a status added to packages/lifecycle does not compile until placed here.
export const SYNDICATE_STATUS = {
  // Taken, not yet broadcast (simulating, waiting for a nonce or for fees); an attempt may be
  // stored already, signed but not sent: Syndicate's PENDING is "signed and sent".
  PENDING: { invalid: false, current: "PENDING", reverted: false, mined: false, stats: "Pending" },
  // Broadcast, not yet seen in a block: Syndicate's PENDING is "signed and sent to the chain".
  SUBMITTED: { invalid: false, current: "PENDING", reverted: false, mined: false, stats: "Submitted" },
  // SUBMITTED, and its attempt is in a block short of the chain's confirmations: PROCESSED ("in a
  // block"). Syndicate's SUBMITTED (some blocks deep) is not told apart: the chain's
  // `confirmations` is the one depth the relay counts, and reaching it is CONFIRMED.
  MINED: { invalid: false, current: "PROCESSED", reverted: false, mined: true, stats: "Submitted" },
  // Mined with the chain's `confirmations`: final for this relay.
  CONFIRMED: { invalid: false, current: "CONFIRMED", reverted: false, mined: true, stats: "Confirmed" },
  // Mined with the chain's confirmations, and failed on chain.
  REVERTED: { invalid: false, current: "CONFIRMED", reverted: true, mined: true, stats: "Failed" },
  // Simulation refused it; nothing was sent (no attempt, as a rule).
  INVALID: { invalid: true, current: "ABANDONED", reverted: false, mined: false, stats: "Failed" },
  // The wallet cannot pay; resumes when funded.
  PAUSED: { invalid: false, current: "PAUSED", reverted: false, mined: false, stats: "Pending" },
  // The relay gave up (refused for good, or its nonce was used by something else).
  FAILED: { invalid: false, current: "ABANDONED", reverted: false, mined: false, stats: "Failed" },
  // Cancelled on request: never sent, or a zero-value self-transfer took its nonce; the call never ran.
  CANCELLED: { invalid: false, current: "ABANDONED", reverted: false, mined: false, stats: "Failed" },
  // Its expiresAt passed before it was sent: the relay gave up on it, nothing was broadcast.
  EXPIRED: { invalid: false, current: "ABANDONED", reverted: false, mined: false, stats: "Failed" },
} as const satisfies { readonly [S in ReadStatus]: SyndicateView };

export const syndicateView = (status: ReadStatus): SyndicateView => SYNDICATE_STATUS[status];

/** An attempt's Syndicate status from its transaction's status and whether it is current. */
export const attemptStatus = (status: ReadStatus, current: boolean): AttemptStatus => (current ? SYNDICATE_STATUS[status].current : SUPERSEDED);

/** Our statuses whose requests read `invalid: <invalid>`. */
export const statusesWithInvalid = (invalid: boolean): TransactionStatus[] => TRANSACTION_STATUSES.filter((s) => SYNDICATE_STATUS[s].invalid === invalid);

/** Which (our status, current?) pairs an attempt filter on Syndicate's status and `reverted` selects. */
export interface AttemptClass {
  status: ReadStatus;
  current: boolean;
}

export function attemptClasses(filter: { statuses?: readonly AttemptStatus[] | undefined; reverted?: boolean | undefined }): AttemptClass[] {
  const all = READ_STATUSES.flatMap((status) => [true, false].map((current) => ({ status, current })));
  return all.filter(({ status, current }) => {
    const view = SYNDICATE_STATUS[status];
    if (filter.statuses && !filter.statuses.includes(current ? view.current : SUPERSEDED)) return false;
    if (filter.reverted !== undefined && (current && view.reverted) !== filter.reverted) return false;
    return true;
  });
}

/** Sums counts per our status into Syndicate's four numbers. */
export function toStats(counts: Partial<Record<TransactionStatus, number>>) {
  const sum = (bucket: StatsBucket) => TRANSACTION_STATUSES.filter((s) => SYNDICATE_STATUS[s].stats === bucket).reduce((n, s) => n + (counts[s] ?? 0), 0);
  return {
    numberOfConfirmedTransactions: sum("Confirmed"),
    numberOfSubmittedTransactions: sum("Submitted"),
    numberOfPendingTransactions: sum("Pending"),
    numberOfFailedTransactions: sum("Failed"),
  };
}
