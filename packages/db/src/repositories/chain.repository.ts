import type { Database } from "../client";

export type ChainDatabase = Pick<Database, "chain">;

export interface ChainRecord {
  chainId: bigint;
  name: string;
  rpcUrls: string[];
  confirmations: number;
  lowBalanceThresholdWei: bigint;
  createdAt: Date;
}

export interface ChainInput {
  chainId: bigint;
  name: string;
  rpcUrls: string[];
  confirmations: number;
  lowBalanceThresholdWei: bigint;
}

type Row = Awaited<ReturnType<ChainDatabase["chain"]["findFirstOrThrow"]>>;
const toRecord = (row: Row): ChainRecord => ({ ...row, lowBalanceThresholdWei: BigInt(row.lowBalanceThresholdWei.toFixed()) });

export function createChainRepository(db: ChainDatabase) {
  return {
    /** Adds the chain, or updates its settings when it exists: running systems pick it up on next use. */
    upsert: async (input: ChainInput): Promise<ChainRecord> => {
      const data = { ...input, lowBalanceThresholdWei: input.lowBalanceThresholdWei.toString() };
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
