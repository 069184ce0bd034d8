import type { SqlPool } from "../client";
import { ATTEMPTS_OF } from "./attempt.sql";
import { toAttempt, type AttemptRecord, type AttemptRow } from "./attempt-record";
import { FIND_MANY } from "./transaction.sql";
import { toTransaction, type TransactionRecord, type TransactionRow } from "./transaction-record";
import type { StatusChangeRecord } from "./transaction.repository";

export interface TransactionSnapshot {
  transaction: TransactionRecord;
  history: StatusChangeRecord[];
  attempts: AttemptRecord[];
}

const HISTORY_OF = `
  SELECT c.id, c.status, c.previous_status AS "previousStatus", c.reason, c.created_at AS "createdAt"
    FROM transaction_status_change c
   WHERE c.project_id = $1 AND c.transaction_id = $2
   ORDER BY c.id`;

/**
 * A transaction, its history and its attempts as of one moment: the three reads run in one
 * read-only REPEATABLE READ transaction. Read one after the other, a worker's move could land
 * between them, and a client would see a history that ends in a status the transaction does not
 * have, or a hash that is not its latest attempt's.
 */
export function createTransactionSnapshots(pool: Pick<SqlPool, "connect">) {
  return async (projectId: string, id: string): Promise<TransactionSnapshot | null> => {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      const [row] = (await client.query<TransactionRow>({ name: "transaction.findMany", text: FIND_MANY }, [[projectId], [id]])).rows;
      const history = row
        ? (await client.query<Omit<StatusChangeRecord, "id"> & { id: string }>({ name: "transaction.historyOf", text: HISTORY_OF }, [projectId, id])).rows
        : [];
      const attempts = row ? (await client.query<AttemptRow>({ name: "attempt.attemptsOf", text: ATTEMPTS_OF }, [[projectId], [id]])).rows : [];
      await client.query("COMMIT");
      if (!row) return null;
      return {
        transaction: toTransaction(row),
        history: history.map((c) => ({ ...c, id: BigInt(c.id) })),
        attempts: attempts.map(toAttempt),
      };
    } catch (e) {
      broken = e as Error;
      throw e;
    } finally {
      // A connection that failed mid-transaction is not given back to the pool.
      client.release(broken);
    }
  };
}

export type ReadTransactionSnapshot = ReturnType<typeof createTransactionSnapshots>;
