import { randomUUID } from "node:crypto";
import type { Sql } from "../client";
import { CREATE_MANY } from "./transaction.sql";
import { asBuffer, type RequestedFields, type TransactionRecord } from "./transaction-record";

/** A transaction to store: its row's request fields (`id`: the client's requestId, or a generated UUID). */
export interface NewTransaction extends Pick<TransactionRecord, "projectId" | "id" | "chainId" | "contractAddress" | "functionSignature" | "args" | "calldata"> {
  valueWei?: bigint;
  /** Error signatures to decode custom errors by (ethers' full form); absent: none. */
  errorSignatures?: readonly string[] | undefined;
  /** sendTransaction's optional fields; omitted: not given. */
  request?: Partial<RequestedFields>;
  /** The most it can pay in fees (gas limit × fee ceiling), counted against a gas budget; absent: not known. */
  gasReservedWei?: bigint | null;
  /** The API key that sent it: the audit log's actor for its signed attempts. */
  apiKeyId?: string | null;
}

export type CreateResult = { created: true; id: string; createdAt: Date } | { created: false; existingId: string };

/**
 * Inserts PENDING transactions with their first status change and outbox event, in one statement
 * (CREATE_MANY), on `sql`: the pool for the gateway's coalesced sends, or the connection of a
 * database transaction for the sends a spend limit guards (spend-guard.ts). The one INSERT of a
 * transaction.
 */
export async function insertTransactions(sql: Sql, inputs: readonly NewTransaction[]): Promise<CreateResult[]> {
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
    inputs.map((i) => i.gasReservedWei?.toString() ?? null),
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
}
