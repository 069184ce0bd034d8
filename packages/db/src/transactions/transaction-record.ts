import type { TransactionKind, TransactionStatus } from "@relay/lifecycle";

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A `transaction` row. Wei amounts, nonces and block numbers are bigints. */
export interface TransactionRecord {
  projectId: string;
  id: string;
  chainId: bigint;
  contractAddress: string;
  functionSignature: string;
  /** The arguments as the gateway normalized them. */
  args: JsonValue;
  calldata: Uint8Array;
  valueWei: bigint;
  status: TransactionStatus;
  fromAddress: string | null;
  nonce: bigint | null;
  gasLimit: bigint | null;
  /** Hash of the latest attempt. */
  hash: string | null;
  blockNumber: bigint | null;
  /** SUBMITTED, not yet final: the attempt seen in a block, and that block (noteMined). */
  minedHash: string | null;
  minedBlockNumber: bigint | null;
  /** Why it is INVALID, PAUSED, REVERTED or FAILED. */
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** FUNDING: a top-up of the wallet `contractAddress` from the funding wallet `fromAddress` (docs/funding.md). */
  kind: TransactionKind;
  /** The request's errorSignatures (ethers' full form): custom errors decoded by name. Null: none given. */
  errorSignatures: string[] | null;
  /** The raw revert data behind `error`, 0x-hex; null when none was recorded. */
  revertData: string | null;
  /** When a cancel was asked for (null: never); no attempt of the call is signed after it. */
  cancelRequestedAt: Date | null;
  /** When a speed-up was last asked for (null: never). */
  speedUpRequestedAt: Date | null;
  /** sendTransaction's optional fields (docs/transactions.md, "Optional request fields"); null when not given. */
  request: RequestedFields;
}

/**
 * What the request asked beyond the contract's fields: the wallet that must send it, a gas limit
 * signed as is, the most it pays per gas, and the time after which it is not signed.
 */
export interface RequestedFields {
  fromAddress: string | null;
  gasLimit: bigint | null;
  maxFeePerGasWei: bigint | null;
  expiresAt: Date | null;
}

/**
 * The select list every hand-written statement returns a transaction with, for table alias `t`.
 * Integers wider than JavaScript's numbers come back as text (pg would give strings anyway) and
 * become bigints in toTransaction, the one place a row is turned into a record.
 */
export const TRANSACTION_COLUMNS = `
  t.project_id AS "projectId", t.id, t.chain_id::text AS "chainId", t.contract_address AS "contractAddress",
  t.function_signature AS "functionSignature", t.args, t.calldata, t.value_wei::text AS "valueWei", t.status,
  t.from_address AS "fromAddress", t.nonce::text AS nonce, t.gas_limit::text AS "gasLimit", t.hash,
  t.block_number::text AS "blockNumber", t.mined_hash AS "minedHash",
  t.mined_block_number::text AS "minedBlockNumber", t.error, t.created_at AS "createdAt", t.updated_at AS "updatedAt", t.kind,
  t.error_signatures AS "errorSignatures", '0x' || encode(t.revert_data, 'hex') AS "revertData",
  t.requested_from_address AS "requestedFromAddress", t.requested_gas_limit::text AS "requestedGasLimit",
  t.max_fee_per_gas_wei::text AS "maxFeePerGasWei", t.expires_at AS "expiresAt",
  t.cancel_requested_at AS "cancelRequestedAt", t.speed_up_requested_at AS "speedUpRequestedAt"`;

export interface TransactionRow {
  projectId: string;
  id: string;
  chainId: string;
  contractAddress: string;
  functionSignature: string;
  args: JsonValue;
  calldata: Buffer;
  valueWei: string;
  status: TransactionStatus;
  fromAddress: string | null;
  nonce: string | null;
  gasLimit: string | null;
  hash: string | null;
  blockNumber: string | null;
  minedHash: string | null;
  minedBlockNumber: string | null;
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
  kind: TransactionKind;
  errorSignatures: string[] | null;
  revertData: string | null;
  requestedFromAddress: string | null;
  requestedGasLimit: string | null;
  maxFeePerGasWei: string | null;
  expiresAt: Date | null;
  cancelRequestedAt: Date | null;
  speedUpRequestedAt: Date | null;
}

const optionalBigInt = (text: string | null): bigint | null => (text === null ? null : BigInt(text));

/** Picks the record's fields by name: statements may return more columns than these. */
export const toTransaction = (row: TransactionRow): TransactionRecord => ({
  projectId: row.projectId,
  id: row.id,
  chainId: BigInt(row.chainId),
  contractAddress: row.contractAddress,
  functionSignature: row.functionSignature,
  args: row.args,
  calldata: new Uint8Array(row.calldata.buffer, row.calldata.byteOffset, row.calldata.byteLength),
  valueWei: BigInt(row.valueWei),
  status: row.status,
  fromAddress: row.fromAddress,
  nonce: optionalBigInt(row.nonce),
  gasLimit: optionalBigInt(row.gasLimit),
  hash: row.hash,
  blockNumber: optionalBigInt(row.blockNumber),
  minedHash: row.minedHash,
  minedBlockNumber: optionalBigInt(row.minedBlockNumber),
  error: row.error,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
  kind: row.kind,
  errorSignatures: row.errorSignatures,
  revertData: row.revertData,
  request: {
    fromAddress: row.requestedFromAddress,
    gasLimit: optionalBigInt(row.requestedGasLimit),
    maxFeePerGasWei: optionalBigInt(row.maxFeePerGasWei),
    expiresAt: row.expiresAt,
  },
  cancelRequestedAt: row.cancelRequestedAt ?? null,
  speedUpRequestedAt: row.speedUpRequestedAt ?? null,
});

/** No optional field given: today's behaviour. */
export const NO_REQUESTED_FIELDS: RequestedFields = { fromAddress: null, gasLimit: null, maxFeePerGasWei: null, expiresAt: null };

/** A Uint8Array as the Buffer pg sends as bytea, without copying. */
export const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
