/** The parts of the API's answers the console shows (the OpenAPI document at /openapi.json has them all). */

import type { ProjectActivity } from "@relay/client/src/types/transactions";
import type { TransactionEvents } from "@relay/client/src/types/webhooks";

export const STATUSES = ["PENDING", "SUBMITTED", "CONFIRMED", "REVERTED", "INVALID", "PAUSED", "FAILED", "CANCELLED", "EXPIRED"] as const;
export type Status = (typeof STATUSES)[number];
export const UNFINISHED: readonly Status[] = ["PENDING", "SUBMITTED", "PAUSED"];

export interface TransactionSummary {
  transactionId: string;
  chainId: number;
  contractAddress: string;
  functionSignature: string;
  status: Status;
  from: string | null;
  nonce: string | null;
  hash: string | null;
  blockNumber: string | null;
  error: string | null;
  createdAt: string;
  updatedAt: string;
  receipt?: Record<string, string | number | null> | null;
}

export interface TransactionRecord extends TransactionSummary {
  args: unknown;
  history: { status: string; previousStatus: string | null; reason: string | null; at: string }[];
  attempts: {
    hash: string;
    nonce: string;
    type: number;
    gasLimit: string;
    maxFeePerGas: string | null;
    maxPriorityFeePerGas: string | null;
    gasPrice: string | null;
    createdAt: string;
    broadcastAt: string | null;
    cancel: boolean;
  }[];
}

export interface TransactionList {
  transactions: TransactionSummary[];
  nextCursor: string | null;
}

/** One delivery attempt as GET …/eventCallbacks gives it (responseStatus 0: no HTTP answer). */
export interface CallbackStat {
  createdAt: string;
  responseStatus: number;
  data: { eventId?: string; deliveryId?: string; attempt?: number; durationMs?: number; error?: string } | null;
}

export interface EventCallback {
  id: string;
  callbackURL: string;
  eventType: string;
  disabled: boolean;
  disabledReason: string | null;
  /** Newest first. */
  stats: CallbackStat[];
}

/** A wallet on one chain, GET …/wallets?withData=true. */
export interface WalletRow {
  walletId: string;
  walletAddress: string;
  chainId: number;
  /** The next nonce the relay hands out on this chain. */
  nonce: number;
  isActive: boolean;
  retiredAt: string | null;
  txCount?: number;
  balance?: string;
  lowBalance?: boolean;
  /** The wallet's nonce on the chain as the relay last read it: mined, with the node's pending ones, when. */
  chainNonce?: { latest: number; pending: number; readAt: string };
}

export interface TopUp {
  id: string;
  createdAt: string;
  chainId: number;
  fromAddress: string;
  toAddress: string;
  amount: string;
  hash: string;
  status: string;
}

/** GET …/transactions/{id}/events: what the relay told the project's receivers (the client's type). */
export type TransactionEvent = TransactionEvents["events"][number];

/** GET …/activity (the client's type). */
export type { ProjectActivity };
