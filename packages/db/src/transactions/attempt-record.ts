import type { Database } from "../client";

export type AttemptDatabase = Pick<Database, "transactionAttempt">;

/** Legacy (type 0, gasPrice) or EIP-1559 (type 2, maxFeePerGas + maxPriorityFeePerGas). */
export type AttemptType = 0 | 2;

/** One signed transaction, stored before it is broadcast. Wei amounts are per gas. */
export interface NewAttempt {
  projectId: string;
  transactionId: string;
  chainId: bigint;
  fromAddress: string;
  nonce: bigint;
  hash: string;
  rawTransaction: Uint8Array;
  type: AttemptType;
  gasLimit: bigint;
  maxFeePerGasWei?: bigint | null;
  maxPriorityFeePerGasWei?: bigint | null;
  gasPriceWei?: bigint | null;
}

export interface AttemptRecord {
  id: string;
  projectId: string;
  transactionId: string;
  chainId: bigint;
  fromAddress: string;
  nonce: bigint;
  hash: string;
  rawTransaction: Uint8Array;
  type: AttemptType;
  gasLimit: bigint;
  maxFeePerGasWei: bigint | null;
  maxPriorityFeePerGasWei: bigint | null;
  gasPriceWei: bigint | null;
  createdAt: Date;
  /** When it was first handed to a node; null while only stored. */
  broadcastAt: Date | null;
}

type Row = Awaited<ReturnType<AttemptDatabase["transactionAttempt"]["findFirstOrThrow"]>>;
type Decimal = NonNullable<Row["gasPriceWei"]>;

const wei = (value: Decimal | null): bigint | null => (value === null ? null : BigInt(value.toFixed()));
const weiText = (value: bigint | null | undefined): string | null => (value === undefined || value === null ? null : value.toString());

export const toAttempt = (row: Row): AttemptRecord => ({
  ...row,
  type: row.type as AttemptType,
  maxFeePerGasWei: wei(row.maxFeePerGasWei),
  maxPriorityFeePerGasWei: wei(row.maxPriorityFeePerGasWei),
  gasPriceWei: wei(row.gasPriceWei),
});

export const attemptData = (input: NewAttempt) => ({
  ...input,
  rawTransaction: new Uint8Array(input.rawTransaction),
  maxFeePerGasWei: weiText(input.maxFeePerGasWei),
  maxPriorityFeePerGasWei: weiText(input.maxPriorityFeePerGasWei),
  gasPriceWei: weiText(input.gasPriceWei),
});
