import type { Sql } from "../client";
import type { AttemptRecord } from "./attempt-record";
import { RECEIPT_JSON, toReceipt, type ReceiptJson, type TransactionReceipt } from "./transaction-receipt";
import { toTransaction, TRANSACTION_COLUMNS, type TransactionRecord, type TransactionRow } from "./transaction-record";
import type { StatusChangeRecord } from "./transaction.repository";

/** What the read endpoint shows of an attempt (not its signed bytes). */
export type AttemptView = Pick<
  AttemptRecord,
  "hash" | "nonce" | "type" | "gasLimit" | "maxFeePerGasWei" | "maxPriorityFeePerGasWei" | "gasPriceWei" | "createdAt" | "broadcastAt" | "cancel"
>;

export interface TransactionSnapshot {
  transaction: TransactionRecord;
  history: StatusChangeRecord[];
  attempts: AttemptView[];
  /** The final attempt's receipt; null before the transaction is CONFIRMED or REVERTED. */
  receipt: TransactionReceipt | null;
}

/**
 * $1 project, $2 transaction: the row, its history (oldest first) and its attempts (oldest first)
 * as JSON arrays, integers as text. One statement: one snapshot, one round trip.
 */
const READ_SNAPSHOT = `
  SELECT ${TRANSACTION_COLUMNS}, ${RECEIPT_JSON} AS receipt,
         (SELECT coalesce(json_agg(json_build_object(
                   'id', c.id::text, 'status', c.status, 'previousStatus', c.previous_status,
                   'reason', c.reason, 'createdAt', c.created_at) ORDER BY c.id), '[]'::json)
            FROM transaction_status_change c
           WHERE c.project_id = t.project_id AND c.transaction_id = t.id) AS history,
         (SELECT coalesce(json_agg(json_build_object(
                   'hash', a.hash, 'nonce', a.nonce::text, 'type', a.type, 'gasLimit', a.gas_limit::text,
                   'maxFeePerGasWei', a.max_fee_per_gas_wei::text, 'maxPriorityFeePerGasWei', a.max_priority_fee_per_gas_wei::text,
                   'gasPriceWei', a.gas_price_wei::text, 'createdAt', a.created_at, 'broadcastAt', a.broadcast_at, 'cancel', a.cancel)
                   ORDER BY a.created_at, a.id), '[]'::json)
            FROM transaction_attempt a
           WHERE a.project_id = t.project_id AND a.transaction_id = t.id) AS attempts
    FROM transaction t
   WHERE t.project_id = $1 AND t.id = $2`;

type Json<T> = { [K in keyof T]: T[K] extends bigint | Date ? string : T[K] extends bigint | null ? string | null : T[K] extends Date | null ? string | null : T[K] };
type SnapshotRow = TransactionRow & { history: Json<StatusChangeRecord>[]; attempts: Json<AttemptView>[]; receipt: ReceiptJson | null };

const bigintOrNull = (text: string | null): bigint | null => (text === null ? null : BigInt(text));

/**
 * A transaction, its history and its attempts as of one moment, read in one statement (one
 * snapshot): read one after the other, a worker's move could land between them, and a client would
 * see a history that ends in a status the transaction does not have, or a hash that is not its
 * latest attempt's. It used to take a read-only REPEATABLE READ transaction of five round trips.
 */
export function createTransactionSnapshots(sql: Sql) {
  return async (projectId: string, id: string): Promise<TransactionSnapshot | null> => {
    const [row] = (await sql.query<SnapshotRow>({ name: "transaction.readSnapshot", text: READ_SNAPSHOT }, [projectId, id])).rows;
    if (!row) return null;
    return {
      transaction: toTransaction(row),
      history: row.history.map((c) => ({ ...c, id: BigInt(c.id), createdAt: new Date(c.createdAt) })),
      attempts: row.attempts.map((a) => ({
        hash: a.hash,
        nonce: BigInt(a.nonce),
        type: a.type,
        gasLimit: BigInt(a.gasLimit),
        maxFeePerGasWei: bigintOrNull(a.maxFeePerGasWei),
        maxPriorityFeePerGasWei: bigintOrNull(a.maxPriorityFeePerGasWei),
        gasPriceWei: bigintOrNull(a.gasPriceWei),
        createdAt: new Date(a.createdAt),
        broadcastAt: a.broadcastAt === null ? null : new Date(a.broadcastAt),
        cancel: a.cancel,
      })),
      receipt: toReceipt(row.receipt),
    };
  };
}

export type ReadTransactionSnapshot = ReturnType<typeof createTransactionSnapshots>;
