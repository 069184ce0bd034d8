/**
 * Requests and answers of the relay's HTTP API. Written out here so the published package has no
 * dependency on the gateway; e2e/client/types-conformance.ts holds them to the gateway's zod
 * schemas at compile time (a field added or renamed there fails the type check until it is here).
 */

export const TRANSACTION_STATUSES = ["PENDING", "SUBMITTED", "CONFIRMED", "REVERTED", "INVALID", "PAUSED", "FAILED", "CANCELLED", "EXPIRED"] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];
/** Statuses a transaction does not leave. */
export const FINAL_STATUSES: readonly TransactionStatus[] = ["CONFIRMED", "REVERTED", "INVALID", "FAILED", "CANCELLED", "EXPIRED"];

export const EVENT_TYPES = ["TransactionStatusChange", "WalletBalanceLow"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

// ---- sendTransaction and our transaction routes ----

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

// ---- personal signatures ----

export interface PersonalSignRequest {
  signerAddress: string;
  message: string;
  /** Your id (a UUID); the client generates one when omitted, so a retry returns the stored signature. */
  signatureId?: string | null;
}

export interface PersonalSignResponse {
  message: string;
  signature: string;
  signerAddress: string;
  signatureId: string;
}

export interface SignatureRecord {
  signatureId: string;
  projectId: string;
  signerAddress: string;
  message: string;
  status: "PENDING" | "SIGNED";
  signature: string | null;
  createdAt: string;
  signedAt: string | null;
}

// ---- event callbacks ----

export interface EventCallbackRequest {
  callbackURL: string;
  eventType: EventType;
}

export interface EventCallbackStat {
  createdAt: string;
  data: unknown;
  eventCallbackId: string;
  /** HTTP status of the delivery attempt; 0 = no HTTP response. */
  responseStatus: number;
}

export interface EventCallback {
  callbackURL: string;
  eventType: EventType;
  id: string;
  projectId: string;
  /** The Standard Webhooks secret (whsec_…): keep it, it is shown only here and on rotation. */
  secret: string;
  stats?: EventCallbackStat[] | null;
}

export interface EventCallbackListItem {
  callbackURL: string;
  eventType: EventType;
  id: string;
  projectId: string;
  disabled: boolean;
  disabledReason: string | null;
  stats: EventCallbackStat[];
}

export interface EventCallbackRotated extends Omit<EventCallbackListItem, "stats"> {
  secret: string;
  previousSecretExpiresAt: string | null;
}

export interface EventCallbackDeleted {
  id: string;
  deleted: true;
}

// ---- Syndicate-compatible routes ----

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

export type WalletType = "BROADCAST" | "SIGNING" | "CLUSTER_MANAGER";

export interface CreateWalletRequest {
  projectId: string;
  chainId: number;
  type?: "BROADCAST" | null;
}

export interface CreateWalletResponse {
  projectId: string;
  walletAddress: string;
}

export interface WalletRequest {
  projectId: string;
  walletAddress: string;
}

export interface RetireWalletResponse {
  projectId: string;
  walletAddress: string;
  transactionId?: string;
}

export interface Wallet {
  walletId: string;
  walletAddress: string;
  chainId: number;
  nonce: number;
  isActive: boolean;
  projectId: string;
  createdAt: string;
  updatedAt: string;
  walletType: WalletType;
  retiredAt: string | null;
}

export interface WalletWithData extends Wallet {
  txCount?: number;
  balance?: string;
}

export type FundingStatus = "PENDING" | "SUBMITTED" | "CONFIRMED" | "FAILED";

export interface FundingTransaction {
  id: string;
  createdAt: string;
  updatedAt: string;
  chainId: number;
  projectId: string;
  fromAddress: string;
  toAddress: string;
  amount: string;
  hash: string;
  signedTxn: string;
  block: number;
  status: FundingStatus;
}

export interface FundingTransactions {
  transactions: FundingTransaction[];
  total: number;
}

export interface TypedDataField {
  name: string;
  type: string;
}

export interface SignTypedDataRequest {
  signerAddress: string;
  domain: Record<string, unknown>;
  types: Record<string, TypedDataField[]>;
  primaryType: string;
  message: Record<string, unknown>;
  /** Your id (a UUID); the client generates one when omitted, so a retry returns the stored signature. */
  signatureId?: string | null;
}

export interface SignTypedDataResponse {
  message: Record<string, unknown>;
  signature: string;
  signerAddress: string;
  signatureId: string;
}

export interface TypedDataSignature {
  signatureId: string;
  projectId: string;
  walletAddress: string;
  domain: Record<string, unknown>;
  types: Record<string, TypedDataField[]>;
  primaryType: string;
  message: Record<string, unknown>;
  signature: string;
  createdAt: string;
}

export interface MessageSignature {
  signatureId: string;
  projectId: string;
  walletAddress: string;
  chainId: number;
  message: string;
  signature: string;
  createdAt: string;
}

export interface ReadContractRequest {
  chainId: number;
  contractAddress: string;
  functionSignature: string;
  args?: Record<string, unknown> | null;
}

// ---- webhook events ----

export interface TransactionStatusChangeData {
  transactionId: string;
  chainId: number;
  status: TransactionStatus;
  previousStatus: TransactionStatus | null;
  reason: string | null;
  from: string | null;
  hash: string | null;
  nonce: string | null;
  blockNumber: string | null;
  [field: string]: unknown;
}

export interface WalletBalanceLowData {
  walletAddress: string;
  chainId: number;
  balance: string;
  threshold: string;
  [field: string]: unknown;
}

interface EventBase<T extends EventType, D> {
  id: string;
  eventType: T;
  projectId: string;
  createdAt: string;
  data: D;
}

export type TransactionStatusChangeEvent = EventBase<"TransactionStatusChange", TransactionStatusChangeData>;
export type WalletBalanceLowEvent = EventBase<"WalletBalanceLow", WalletBalanceLowData>;
export type RelayEvent = TransactionStatusChangeEvent | WalletBalanceLowEvent;
