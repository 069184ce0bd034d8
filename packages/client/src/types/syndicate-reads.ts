/** Syndicate's reads of transaction requests, attempts and stats, and the page query they share. */

export interface PageQuery {
  page?: number;
  limit?: number;
}

export interface RequestsQuery extends PageQuery {
  search?: string;
  invalid?: boolean;
}

export const ATTEMPT_STATUSES = ["PENDING", "PROCESSED", "SUBMITTED", "CONFIRMED", "PAUSED", "ABANDONED"] as const;
export type AttemptStatus = (typeof ATTEMPT_STATUSES)[number];

export interface AttemptsQuery extends PageQuery {
  search?: string;
  reverted?: boolean;
  status?: AttemptStatus | AttemptStatus[];
}

export interface SyndicateTransactionAttempt {
  transactionId: string;
  hash: string;
  chainId: number;
  version: number;
  status: AttemptStatus;
  block: number;
  signedTxn: string;
  walletAddress: string;
  reverted: boolean;
  nonce: number;
  createdAt: string;
  updatedAt: string;
}

export interface SyndicateTransactionRequest {
  transactionId: string;
  chainId: number;
  projectId: string;
  invalid: boolean;
  contractAddress: string;
  functionSignature: string;
  data: string;
  decodedData: Record<string, unknown>;
  value: string;
  createdAt: string;
  updatedAt: string;
  transactionAttempts: SyndicateTransactionAttempt[];
}

export interface SyndicateTransactionRequests {
  transactionRequests: SyndicateTransactionRequest[];
  total: number;
}

export interface SyndicateTransactionAttempts {
  transactionAttempts: SyndicateTransactionAttempt[];
  total: number;
}

export interface TransactionStats {
  numberOfConfirmedTransactions: number;
  numberOfSubmittedTransactions: number;
  numberOfPendingTransactions: number;
  numberOfFailedTransactions: number;
}
