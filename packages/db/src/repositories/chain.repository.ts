import type { Database } from "../client";

export type ChainDatabase = Pick<Database, "chain">;

export interface ChainRecord {
  chainId: bigint;
  name: string;
  rpcUrls: string[];
  confirmations: number;
  lowBalanceThresholdWei: bigint;
  /** Per-gas ceilings for fees, bumps included; null = none. */
  maxFeePerGasCapWei: bigint | null;
  maxPriorityFeePerGasCapWei: bigint | null;
  /** A SUBMITTED transaction not mined after this long gets a replacement attempt. */
  stuckAfterSeconds: number;
  /** How long to wait between looks for a receipt. */
  blockTimeMs: number;
  createdAt: Date;
}

export interface ChainInput {
  chainId: bigint;
  name: string;
  rpcUrls: string[];
  confirmations: number;
  lowBalanceThresholdWei: bigint;
  maxFeePerGasCapWei?: bigint | null;
  maxPriorityFeePerGasCapWei?: bigint | null;
  stuckAfterSeconds?: number;
  blockTimeMs?: number;
}

type Row = Awaited<ReturnType<ChainDatabase["chain"]["findFirstOrThrow"]>>;
type Decimal = Row["lowBalanceThresholdWei"];
const wei = (value: Decimal | null): bigint | null => (value === null ? null : BigInt(value.toFixed()));
const toRecord = (row: Row): ChainRecord => ({
  ...row,
  lowBalanceThresholdWei: BigInt(row.lowBalanceThresholdWei.toFixed()),
  maxFeePerGasCapWei: wei(row.maxFeePerGasCapWei),
  maxPriorityFeePerGasCapWei: wei(row.maxPriorityFeePerGasCapWei),
});
const weiText = (value: bigint | null | undefined) => (value === undefined ? undefined : value === null ? null : value.toString());

export function createChainRepository(db: ChainDatabase) {
  return {
    /** Adds the chain, or updates its settings when it exists: running systems pick it up on next use. */
    upsert: async (input: ChainInput): Promise<ChainRecord> => {
      const data = {
        ...input,
        lowBalanceThresholdWei: input.lowBalanceThresholdWei.toString(),
        maxFeePerGasCapWei: weiText(input.maxFeePerGasCapWei),
        maxPriorityFeePerGasCapWei: weiText(input.maxPriorityFeePerGasCapWei),
      };
      return toRecord(await db.chain.upsert({ where: { chainId: input.chainId }, create: data, update: data }));
    },
    list: async (): Promise<ChainRecord[]> => (await db.chain.findMany({ orderBy: { chainId: "asc" } })).map(toRecord),
    findById: async (chainId: bigint): Promise<ChainRecord | null> => {
      const row = await db.chain.findUnique({ where: { chainId } });
      return row ? toRecord(row) : null;
    },
  };
}

export type ChainRepository = ReturnType<typeof createChainRepository>;
