export { createDatabase, createPool } from "./client";
export type { DatabasePooler } from "./pooler";
export type { Database, DatabaseSettings, Sql, SqlPool } from "./client";
export * from "./repositories/project.repository";
export * from "./repositories/api-key.repository";
export * from "./repositories/chain.repository";
export * from "./repositories/wallet.repository";
export * from "./repositories/wallet-store";
export * from "./repositories/wallet-rows.repository";
export * from "./repositories/signature.repository";
export * from "./repositories/signature-content";
export { migrate } from "./migrate/migrate";
export type { MigrateOptions, MigrateResult } from "./migrate/migrate";
export { ensureDatabase, databaseName, withDatabase } from "./migrate/ensure-database";
export { resolveMigrationsDir } from "./migrate/migrations-dir";
export * from "./transactions/transaction.repository";
export * from "./transactions/transaction-control.repository";
export * from "./transactions/transaction-snapshot";
export * from "./transactions/transaction-list.repository";
export { receiptOf, type ReceiptSource, type TransactionReceipt } from "./transactions/transaction-receipt";
export * from "./transactions/transaction-reads.repository";
export type { Move, MoveFields } from "./transactions/transaction-moves";
export type { NonceBinding, NonceRequest } from "./transactions/nonce-allocation";
export type { JsonValue, RequestedFields, TransactionRecord } from "./transactions/transaction-record";
export { NO_REQUESTED_FIELDS } from "./transactions/transaction-record";
export type { AttemptRecord, AttemptType, NewAttempt } from "./transactions/attempt-record";
export type { TransactionStatusChangePayload } from "./transactions/status-change-event";
export * from "./transactions/nonce-filler.repository";
export * from "./transactions/wallet-nonce.repository";
export type {
  EventCallbackRecord,
  EventCallbackStatRecord,
  EventCallbackWithSecret,
  EventCallbackWithStats,
  SecretRotation,
  WebhookDeliveryRecord,
  WebhookDeliveryStatus,
} from "./webhooks/webhook-records";
export * from "./webhooks/event-callback.repository";
export * from "./webhooks/event-dispatch.repository";
export * from "./webhooks/webhook-delivery.repository";
export * from "./webhooks/webhook-history.repository";
export * from "./webhooks/webhook-secret.repository";
export * from "./webhooks/transaction-events.repository";
export * from "./activity/project-activity.repository";
export * from "./activity/queue-depth.repository";
export * from "./webhooks/wallet-balance.repository";
export type { WalletBalanceLowPayload } from "./webhooks/wallet-balance-event";
export * from "./metrics/metrics.repository";
export * from "./funding/project-funding.repository";
export * from "./funding/top-up.repository";
export * from "./policies/policy.repository";
export * from "./policies/spend-guard";
export * from "./audit/audit-actions";
export * from "./audit/audit-log.repository";
export * from "./audit/audit-privileges";
export * from "./audit/audited-change";
