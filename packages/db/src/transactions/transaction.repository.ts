import { randomUUID } from "node:crypto";
import { AppError, createBatcher, toError, type BatcherOptions } from "@relay/core";
import { UNFINISHED_STATUSES, type TransactionStatus } from "@relay/lifecycle";
import type { Database, Sql } from "../client";
import { createAttemptStore } from "./attempt-store";
import { createTransactionMoves } from "./transaction-moves";
import { createNonceAllocation } from "./nonce-allocation";
import { CALLS_AHEAD, CREATE_MANY, FIND_MANY, FIND_UNFINISHED } from "./transaction.sql";
import { asBuffer, toTransaction, type JsonValue, type RequestedFields, type TransactionRecord, type TransactionRow } from "./transaction-record";

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

export interface NewTransaction {
  projectId: string;
  /** The client's requestId, or a generated UUID. */
  id: string;
  chainId: bigint;
  contractAddress: string;
  functionSignature: string;
  args: JsonValue;
  calldata: Uint8Array;
  valueWei?: bigint;
  /** Error signatures to decode custom errors by (ethers' full form); absent: none. */
  errorSignatures?: readonly string[] | undefined;
  /** sendTransaction's optional fields; omitted: not given. */
  request?: Partial<RequestedFields>;
  /** The API key that sent it: the audit log's actor for its signed attempts. */
  apiKeyId?: string | null;
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

export type CreateResult = { created: true; id: string; createdAt: Date } | { created: false; existingId: string };

export interface StatusChangeRecord {
  id: bigint;
  status: TransactionStatus;
  previousStatus: TransactionStatus | null;
  reason: string | null;
  createdAt: Date;
}

const codeOf = (e: unknown): string | undefined => (toError(e) as { code?: string }).code;

export function createTransactionRepository({ sql, db, coalesce }: TransactionRepositoryDeps) {
  const createMany = async (inputs: readonly NewTransaction[]): Promise<CreateResult[]> => {
    const result = await sql.query<{ projectId: string; id: string; createdAt: Date }>({ name: "transaction.createMany", text: CREATE_MANY }, [
      inputs.map((i) => i.projectId),
      inputs.map((i) => i.id),
      inputs.map((i) => i.chainId.toString()),
      inputs.map((i) => i.contractAddress),
      inputs.map((i) => i.functionSignature),
      inputs.map((i) => JSON.stringify(i.args)),
      inputs.map((i) => asBuffer(i.calldata)),
      inputs.map((i) => (i.valueWei ?? 0n).toString()),
      inputs.map(() => randomUUID()),
      inputs.map((i) => (i.errorSignatures ? JSON.stringify(i.errorSignatures) : null)),
      inputs.map((i) => i.request?.fromAddress ?? null),
      inputs.map((i) => i.request?.gasLimit?.toString() ?? null),
      inputs.map((i) => i.request?.maxFeePerGasWei?.toString() ?? null),
      inputs.map((i) => i.request?.expiresAt ?? null),
      inputs.map((i) => i.apiKeyId ?? null),
    ]);
    const created = new Map(result.rows.map((row) => [`${row.projectId}/${row.id}`, row]));
    // Only the first occurrence of an id repeated in the batch was inserted; the rest conflict.
    return inputs.map((input) => {
      const key = `${input.projectId.toLowerCase()}/${input.id.toLowerCase()}`;
      const row = created.get(key);
      created.delete(key);
      return row ? { created: true, id: row.id, createdAt: row.createdAt } : { created: false, existingId: input.id };
    });
  };
  const createAlone = async (input: NewTransaction): Promise<CreateResult> => (await createMany([input]))[0]!;
  /**
   * A batch that Postgres refuses for its data (a row's foreign key, a value out of range: SQL
   * states of classes 22 and 23) is tried again one by one, so one bad request fails alone rather
   * than taking its batch with it. Any other failure (Postgres unreachable) fails the batch.
   */
  const createBatch = async (inputs: readonly NewTransaction[]): Promise<(CreateResult | Error)[]> => {
    try {
      return await createMany(inputs);
    } catch (e) {
      if (inputs.length === 1 || !/^2[23]/.test(codeOf(e) ?? "")) throw e;
      return Promise.all(inputs.map((input) => createAlone(input).catch(toError)));
    }
  };
  const createOne = coalesce ? createBatcher(createBatch, coalesce) : createAlone;

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
