import { TRANSACTION_STATUSES, type TransactionStatus } from "@relay/lifecycle";
import type { Sql } from "../client";
import type { JsonValue } from "./transaction-record";
import { COUNT_BY_STATUS, LIST_ATTEMPTS, LIST_REQUESTS, READ_REQUEST } from "./transaction-reads.sql";

/**
 * The status an attempt is read with: the transaction's, or MINED for a SUBMITTED transaction
 * whose attempt the tx-worker has seen in a block, short of the chain's confirmations.
 */
export type ReadStatus = TransactionStatus | "MINED";
export const READ_STATUSES: readonly ReadStatus[] = [...TRANSACTION_STATUSES, "MINED"];

/** An attempt as the Syndicate-shaped reads need it: its own fields and its transaction's state. */
export interface AttemptReadRecord {
  transactionId: string;
  hash: string;
  chainId: bigint;
  fromAddress: string;
  nonce: bigint;
  /** The signed transaction, 0x hex. */
  rawTransaction: string;
  createdAt: Date;
  /** The transaction's status (MINED: in a block, being confirmed) and the block of its mined attempt. */
  status: ReadStatus;
  blockNumber: bigint | null;
  transactionUpdatedAt: Date;
  /** Carries the transaction's status: the mined attempt, or the newest while none is mined. */
  current: boolean;
  /** 0 for the transaction's first attempt, 1 for the next… */
  version: number;
  /** When the attempt that superseded this one was made; null for the newest. */
  nextCreatedAt: Date | null;
}

export interface RequestReadRecord {
  id: string;
  projectId: string;
  chainId: bigint;
  contractAddress: string;
  functionSignature: string;
  args: JsonValue;
  /** 0x hex. */
  calldata: string;
  valueWei: bigint;
  status: TransactionStatus;
  createdAt: Date;
  updatedAt: Date;
  /** Oldest first. */
  attempts: AttemptReadRecord[];
}

export interface ReadPaging {
  limit: number;
  offset: number;
}

export interface ReadSearch {
  text: string;
  /** The text as a UUID, lower-case, when it is one. */
  uuid: string | null;
}

type Json<T> = { [K in keyof T]: T[K] extends bigint | Date ? string : T[K] extends bigint | null | Date ? string | null : T[K] };
type AttemptJson = Json<Omit<AttemptReadRecord, "version">> & { version: number | string };
type RequestJson = Json<Omit<RequestReadRecord, "attempts">> & { attempts: AttemptJson[] };

const toAttempt = (a: AttemptJson): AttemptReadRecord => ({
  transactionId: a.transactionId,
  hash: a.hash,
  chainId: BigInt(a.chainId),
  fromAddress: a.fromAddress,
  nonce: BigInt(a.nonce),
  rawTransaction: a.rawTransaction,
  createdAt: new Date(a.createdAt),
  status: a.status,
  blockNumber: a.blockNumber === null ? null : BigInt(a.blockNumber),
  transactionUpdatedAt: new Date(a.transactionUpdatedAt),
  current: a.current,
  version: Number(a.version),
  nextCreatedAt: a.nextCreatedAt === null ? null : new Date(a.nextCreatedAt),
});

const toRequest = (r: RequestJson): RequestReadRecord => ({
  id: r.id,
  projectId: r.projectId,
  chainId: BigInt(r.chainId),
  contractAddress: r.contractAddress,
  functionSignature: r.functionSignature,
  args: r.args,
  calldata: r.calldata,
  valueWei: BigInt(r.valueWei),
  status: r.status,
  createdAt: new Date(r.createdAt),
  updatedAt: new Date(r.updatedAt),
  attempts: r.attempts.map(toAttempt),
});

/**
 * Reads of a project's transaction requests and attempts for the Syndicate-shaped endpoints
 * (docs/syndicate.md): every statement is scoped to one project.
 */
export function createTransactionReads(sql: Sql) {
  return {
    findRequest: async (projectId: string, id: string): Promise<RequestReadRecord | null> => {
      const [row] = (await sql.query<{ request: RequestJson }>({ name: "syndicate.readRequest", text: READ_REQUEST }, [projectId, id])).rows;
      return row ? toRequest(row.request) : null;
    },

    /** Requests newest first; `statuses` narrows to those statuses. */
    listRequests: async (
      projectId: string,
      filter: { statuses?: readonly TransactionStatus[] | undefined; search?: ReadSearch | undefined },
      paging: ReadPaging,
    ): Promise<{ total: number; requests: RequestReadRecord[] }> => {
      const params = [projectId, filter.statuses ?? null, filter.search?.text ?? null, filter.search?.uuid ?? null, paging.limit, paging.offset];
      const [row] = (await sql.query<{ total: number; requests: RequestJson[] }>({ name: "syndicate.listRequests", text: LIST_REQUESTS }, params)).rows;
      return { total: row!.total, requests: row!.requests.map(toRequest) };
    },

    /** Attempts newest first; `classes` narrows to attempts of those (transaction status, current?) pairs. */
    listAttempts: async (
      projectId: string,
      filter: { classes?: readonly { status: ReadStatus; current: boolean }[] | undefined; search?: ReadSearch | undefined },
      paging: ReadPaging,
    ): Promise<{ total: number; attempts: AttemptReadRecord[] }> => {
      const classes = filter.classes?.map((c) => `${c.status}:${c.current}`) ?? null;
      const params = [projectId, classes, filter.search?.text ?? null, filter.search?.uuid ?? null, paging.limit, paging.offset];
      const [row] = (await sql.query<{ total: number; attempts: AttemptJson[] }>({ name: "syndicate.listAttempts", text: LIST_ATTEMPTS }, params)).rows;
      return { total: row!.total, attempts: row!.attempts.map(toAttempt) };
    },

    /** How many of the project's transactions are in each status (absent: none). */
    countByStatus: async (projectId: string): Promise<Partial<Record<TransactionStatus, number>>> => {
      const rows = (await sql.query<{ status: TransactionStatus; count: number }>({ name: "syndicate.countByStatus", text: COUNT_BY_STATUS }, [projectId])).rows;
      return Object.fromEntries(rows.map((r) => [r.status, r.count]));
    },
  };
}

export type TransactionReads = ReturnType<typeof createTransactionReads>;
