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
  /** A cancel: a zero-value self-transfer with empty data at the nonce, not the transaction's call. */
  cancel?: boolean;
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
  /** A cancel: a zero-value self-transfer with empty data at the nonce, not the transaction's call. */
  cancel: boolean;
}

/** An attempt as ATTEMPT_COLUMNS returns it. */
export interface AttemptRow {
  id: string;
  projectId: string;
  transactionId: string;
  chainId: string;
  fromAddress: string;
  nonce: string;
  hash: string;
  rawTransaction: Buffer;
  type: number;
  gasLimit: string;
  maxFeePerGasWei: string | null;
  maxPriorityFeePerGasWei: string | null;
  gasPriceWei: string | null;
  createdAt: Date;
  broadcastAt: Date | null;
  cancel: boolean;
}

const wei = (text: string | null): bigint | null => (text === null ? null : BigInt(text));

export const toAttempt = (row: AttemptRow): AttemptRecord => ({
  id: row.id,
  projectId: row.projectId,
  transactionId: row.transactionId,
  chainId: BigInt(row.chainId),
  fromAddress: row.fromAddress,
  nonce: BigInt(row.nonce),
  hash: row.hash,
  rawTransaction: new Uint8Array(row.rawTransaction.buffer, row.rawTransaction.byteOffset, row.rawTransaction.byteLength),
  type: row.type as AttemptType,
  gasLimit: BigInt(row.gasLimit),
  maxFeePerGasWei: wei(row.maxFeePerGasWei),
  maxPriorityFeePerGasWei: wei(row.maxPriorityFeePerGasWei),
  gasPriceWei: wei(row.gasPriceWei),
  createdAt: row.createdAt,
  broadcastAt: row.broadcastAt,
  cancel: row.cancel ?? false,
});

const weiText = (value: bigint | null | undefined): string | null => (value === undefined || value === null ? null : value.toString());

/** One attempt's values, in RECORD_ATTEMPTS' column order. */
export const attemptParams = (input: NewAttempt) => [
  input.projectId,
  input.transactionId,
  input.chainId.toString(),
  input.fromAddress,
  input.nonce.toString(),
  input.hash,
  Buffer.from(input.rawTransaction.buffer, input.rawTransaction.byteOffset, input.rawTransaction.byteLength),
  input.type,
  input.gasLimit.toString(),
  weiText(input.maxFeePerGasWei),
  weiText(input.maxPriorityFeePerGasWei),
  weiText(input.gasPriceWei),
  input.cancel ?? false,
];
