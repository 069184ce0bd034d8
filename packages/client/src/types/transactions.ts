/** sendTransaction, the relay's transaction reads, cancel and speed-up, and view calls (POST /transact/call). */

export const TRANSACTION_STATUSES = ["PENDING", "SUBMITTED", "CONFIRMED", "REVERTED", "INVALID", "PAUSED", "FAILED", "CANCELLED", "EXPIRED"] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];
/** Statuses a transaction does not leave. */
export const FINAL_STATUSES: readonly TransactionStatus[] = ["CONFIRMED", "REVERTED", "INVALID", "FAILED", "CANCELLED", "EXPIRED"];

export interface SendTransactionRequest {
  projectId: string;
  chainId: number;
  contractAddress: string;
  functionSignature: string;
  /** Your id (a UUID), returned as transactionId; the client generates one when omitted, so a retry cannot send twice. */
  requestId?: string | null;
  args?: Record<string, unknown> | null;
  errorSignatures?: string[] | null;
  /** Wei, a decimal string. */
  value?: string | null;
  fromAddress?: string | null;
  gasLimit?: number | null;
  /** Wei per gas, a decimal string. */
  maxFeePerGas?: string | null;
  /** ISO 8601 date-time with a zone. */
  expiresAt?: string | null;
}

export interface SendTransactionResponse {
  transactionId: string;
}

export interface TransactionReceipt {
  blockNumber: string | null;
  blockHash: string;
  gasUsed: string;
  effectiveGasPrice: string | null;
  l1Fee: string | null;
  fee: string | null;
  logCount: number;
}

export interface TransactionHistoryEntry {
  status: string;
  previousStatus: string | null;
  reason: string | null;
  at: string;
}

export interface TransactionAttempt {
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
}

export interface TransactionListItem {
  transactionId: string;
  projectId: string;
  chainId: number;
  contractAddress: string;
  functionSignature: string;
  args: unknown;
  calldata: string;
  status: TransactionStatus;
  from: string | null;
  nonce: string | null;
  hash: string | null;
  blockNumber: string | null;
  error: string | null;
  revertData: string | null;
  createdAt: string;
  updatedAt: string;
  receipt: TransactionReceipt | null;
}

export interface TransactionRecord extends TransactionListItem {
  history: TransactionHistoryEntry[];
  attempts: TransactionAttempt[];
}

export interface ListTransactionsQuery {
  status?: TransactionStatus | TransactionStatus[];
  chainId?: number;
  fromAddress?: string;
  createdAfter?: string | Date;
  createdBefore?: string | Date;
  limit?: number;
  cursor?: string;
}

export interface TransactionList {
  transactions: TransactionListItem[];
  nextCursor: string | null;
}

export interface CancelResponse {
  transactionId: string;
  status: TransactionStatus;
  cancel: "done" | "requested";
}

export interface SpeedUpResponse {
  transactionId: string;
  status: TransactionStatus;
  speedUp: "requested";
  capped: boolean;
  message?: string;
}

export interface ReadContractRequest {
  chainId: number;
  contractAddress: string;
  functionSignature: string;
  args?: Record<string, unknown> | null;
}

/** GET /transact/project/{projectId}/activity: the last hour (60 buckets of a minute) or day (96 of 15 minutes). */
export interface ProjectActivity {
  window: "hour" | "day";
  bucketSeconds: number;
  buckets: {
    start: string;
    accepted: number;
    confirmed: number;
    confirmSecondsP50: number | null;
    confirmSecondsP99: number | null;
    deliveryAttempts: number;
    deliveredAttempts: number;
    /** The project's unfinished transactions and deliveries still to make, the most at a sampled minute of the bucket; null when none was sampled. */
    waitingTransactions: number | null;
    waitingDeliveries: number | null;
  }[];
  waiting: { pending: number; submitted: number; paused: number; deliveriesPending: number; eventsUndispatched: number };
}
