import { AppError, createBatcher, type BatcherOptions } from "@relay/core";
import { UNFINISHED_STATUSES, type TransactionStatus } from "@relay/lifecycle";
import type { Database, Sql } from "../client";
import { oneByOneOnDataError } from "../one-by-one-on-data-error";
import { createAttemptStore } from "./attempt-store";
import { createTransactionMoves } from "./transaction-moves";
import { createNonceAllocation } from "./nonce-allocation";
import { CALLS_AHEAD, FIND_MANY, FIND_UNFINISHED } from "./transaction.sql";
import { insertTransactions, type CreateResult, type NewTransaction } from "./transaction-insert";

export type { CreateResult, NewTransaction } from "./transaction-insert";
import { toTransaction, type TransactionRecord, type TransactionRow } from "./transaction-record";

/**
 * Transactions, their status history, their signed attempts and the wallets' nonces
 * (docs/transactions.md).
 *
 * - create(input): inserts a PENDING transaction with its first status change and outbox event;
 *   `{ created: false }` when the project already has a transaction with this id. createMany does
 *   it for many in one statement; with `coalesce`, concurrent creates share one.
 * - move(projectId, id, { from, to, reason?, set? }): `from` → `to` if the transaction is still in
 *   `from`, with a status change and an outbox event; false when it is not (another worker moved
 *   it first: do nothing on chain). A move outside the lifecycle table throws.
 * - allocateNonce({ projectId, transactionId, address, chainPendingNonce }): binds the wallet's
 *   next nonce to a PENDING transaction, or returns the binding it already has (nonce-allocation.ts).
 * - recordAttempt / markAttemptBroadcast / attempts: the signed transactions, stored before they
 *   are broadcast (attempt-store.ts).
 * - findById, history, findUnfinished: reads.
 *
 * The writes on every request and every worker step (create, move, allocateNonce) and the reads of
 * transaction rows are hand-written SQL on the shared pg pool, each one statement, so one round
 * trip and one database transaction; the rest goes through Prisma. The timestamps of a
 * transaction, its history and its events come from the database clock (one `now()` per change).
 */

export type TransactionDatabase = Pick<Database, "transactionStatusChange">;

export interface TransactionRepositoryDeps {
  sql: Sql;
  db: TransactionDatabase;
  /**
   * Coalesce concurrent calls into one statement per batch: `create` (one commit for the batch:
   * the gateway's sendTransaction under load), and the worker's reads (`findById`, `attempts`)
   * and writes (`allocateNonce`, `recordAttempt`, `move`). Without it, one statement per call.
   */
  coalesce?: BatcherOptions;
}

/** A call a wallet's transaction makes at its nonce: what the next transactions of the wallet run after. */
export interface CallAhead {
  nonce: bigint;
  to: string;
  calldata: Buffer;
  valueWei: bigint;
  /** The gas limit it was signed with; null while it is not signed. */
  gasLimit: bigint | null;
}

export interface StatusChangeRecord {
  id: bigint;
  status: TransactionStatus;
  previousStatus: TransactionStatus | null;
  reason: string | null;
  createdAt: Date;
}

export function createTransactionRepository({ sql, db, coalesce }: TransactionRepositoryDeps) {
  const createMany = (inputs: readonly NewTransaction[]): Promise<CreateResult[]> => insertTransactions(sql, inputs);
  const createAlone = async (input: NewTransaction): Promise<CreateResult> => (await createMany([input]))[0]!;
  const createOne = coalesce ? createBatcher(oneByOneOnDataError(createMany), coalesce) : createAlone;

  const findMany = async (keys: readonly { projectId: string; id: string }[]): Promise<(TransactionRecord | null)[]> => {
    const { rows } = await sql.query<TransactionRow>({ name: "transaction.findMany", text: FIND_MANY }, [keys.map((k) => k.projectId), keys.map((k) => k.id)]);
    const byKey = new Map(rows.map((row) => [`${row.projectId}/${row.id}`, toTransaction(row)]));
    return keys.map((k) => byKey.get(`${k.projectId.toLowerCase()}/${k.id.toLowerCase()}`) ?? null);
  };
  const findOne = coalesce
    ? createBatcher(findMany, coalesce)
    : async (key: { projectId: string; id: string }) => (await findMany([key]))[0] ?? null;

  return {
    ...createAttemptStore(sql, coalesce),
    ...createTransactionMoves(sql, coalesce),
    ...createNonceAllocation(sql, coalesce),
    create: (input: NewTransaction): Promise<CreateResult> => createOne(input),
    createMany,

    findById: (projectId: string, id: string): Promise<TransactionRecord | null> => findOne({ projectId, id }),

    /**
     * PENDING, SUBMITTED and PAUSED transactions not touched since `olderThan`, oldest first (then
     * by project and id); with `after`, those that come after that one in this order.
     */
    findUnfinished: async (query: {
      olderThan: Date;
      limit: number;
      after?: Pick<TransactionRecord, "updatedAt" | "projectId" | "id"> | undefined;
    }): Promise<TransactionRecord[]> => {
      const { after } = query;
      const result = await sql.query<TransactionRow>(FIND_UNFINISHED, [
        UNFINISHED_STATUSES,
        query.olderThan,
        query.limit,
        after?.updatedAt ?? null,
        after?.projectId ?? null,
        after?.id ?? null,
      ]);
      return result.rows.map(toTransaction);
    },

    /**
     * The calls of `address`'s transactions on `chainId` at nonces from `fromNonce` up to (not
     * including) `beforeNonce`, or at every nonce bound from `fromNonce` on when it is null, in
     * nonce order: those that use or will use their nonce (not INVALID or FAILED), but `except`.
     */
    callsAhead: async (query: {
      chainId: bigint;
      address: string;
      fromNonce: bigint;
      beforeNonce: bigint | null;
      /** A transaction not to count (the one these calls are ahead of). */
      except: { projectId: string; id: string };
    }): Promise<CallAhead[]> => {
      const { rows } = await sql.query<{ nonce: string; to: string; calldata: Buffer; valueWei: string; gasLimit: string | null }>(
        { name: "transaction.callsAhead", text: CALLS_AHEAD },
        [query.chainId.toString(), query.address, query.fromNonce.toString(), query.beforeNonce?.toString() ?? null, query.except.projectId, query.except.id],
      );
      return rows.map((r) => ({ nonce: BigInt(r.nonce), to: r.to, calldata: r.calldata, valueWei: BigInt(r.valueWei), gasLimit: r.gasLimit === null ? null : BigInt(r.gasLimit) }));
    },

    /** Every status the transaction took, oldest first. */
    history: (projectId: string, id: string): Promise<StatusChangeRecord[]> =>
      db.transactionStatusChange.findMany({
        where: { projectId, transactionId: id },
        orderBy: { id: "asc" },
        select: { id: true, status: true, previousStatus: true, reason: true, createdAt: true },
      }),

  };
}

export type TransactionRepository = ReturnType<typeof createTransactionRepository>;
