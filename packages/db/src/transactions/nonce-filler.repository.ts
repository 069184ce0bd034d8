import type { Sql } from "../client";
import type { TransactionStatus } from "./lifecycle";

/**
 * Gaps in a wallet's nonces and the 0-value self-transfers that close them. A nonce bound to a
 * transaction that ended without using it on chain (FAILED or INVALID after allocation) would
 * block every later nonce of the wallet; the worker of a transaction waiting behind it fills it.
 */
export interface NonceFillerRecord {
  chainId: bigint;
  address: string;
  nonce: bigint;
  hash: string;
  rawTransaction: Uint8Array;
  createdAt: Date;
}

export function createNonceFillerRepository(sql: Sql) {
  return {
    /** The status of the transaction bound to this nonce, or null when none is. */
    holderStatus: async (chainId: bigint, address: string, nonce: bigint): Promise<TransactionStatus | null> => {
      const result = await sql.query<{ status: TransactionStatus }>(
        `SELECT status FROM transaction WHERE chain_id = $1 AND from_address = $2 AND nonce = $3`,
        [chainId.toString(), address, nonce.toString()],
      );
      return result.rows[0]?.status ?? null;
    },
    /** The filler stored for this nonce, or null. */
    find: async (chainId: bigint, address: string, nonce: bigint): Promise<NonceFillerRecord | null> => {
      const result = await sql.query<{ chainId: string; address: string; nonce: string; hash: string; rawTransaction: Buffer; createdAt: Date }>(
        `SELECT chain_id::text AS "chainId", address, nonce::text AS nonce, hash, raw_transaction AS "rawTransaction", created_at AS "createdAt"
           FROM nonce_filler WHERE chain_id = $1 AND address = $2 AND nonce = $3`,
        [chainId.toString(), address, nonce.toString()],
      );
      const row = result.rows[0];
      return row ? { ...row, chainId: BigInt(row.chainId), nonce: BigInt(row.nonce) } : null;
    },
    /** Stores a signed filler unless one exists for the nonce; returns the one stored. */
    record: async (filler: Omit<NonceFillerRecord, "createdAt">): Promise<NonceFillerRecord> => {
      const result = await sql.query<{ chainId: string; address: string; nonce: string; hash: string; rawTransaction: Buffer; createdAt: Date }>(
        `WITH inserted AS (
           INSERT INTO nonce_filler (chain_id, address, nonce, hash, raw_transaction, status)
           VALUES ($1, $2, $3, $4, $5, 'SIGNED')
           ON CONFLICT (chain_id, address, nonce) DO NOTHING
           RETURNING *)
         SELECT chain_id::text AS "chainId", address, nonce::text AS nonce, hash, raw_transaction AS "rawTransaction", created_at AS "createdAt"
           FROM inserted
         UNION ALL
         SELECT chain_id::text, address, nonce::text, hash, raw_transaction, created_at
           FROM nonce_filler WHERE chain_id = $1 AND address = $2 AND nonce = $3 AND NOT EXISTS (SELECT 1 FROM inserted)`,
        [filler.chainId.toString(), filler.address, filler.nonce.toString(), filler.hash, Buffer.from(filler.rawTransaction)],
      );
      const row = result.rows[0]!;
      return { ...row, chainId: BigInt(row.chainId), nonce: BigInt(row.nonce) };
    },
    /**
     * Replaces the stored filler of a nonce with new bytes (the node refused the stored ones on
     * their fees), only if it is still `previousHash`: of replicas re-pricing at once, one wins and
     * the others go on with its bytes. Returns the filler stored now.
     */
    replace: async (previousHash: string, filler: Omit<NonceFillerRecord, "createdAt">): Promise<NonceFillerRecord> => {
      const result = await sql.query<{ chainId: string; address: string; nonce: string; hash: string; rawTransaction: Buffer; createdAt: Date }>(
        `WITH replaced AS (
           UPDATE nonce_filler SET hash = $5, raw_transaction = $6
            WHERE chain_id = $1 AND address = $2 AND nonce = $3 AND hash = $4
           RETURNING *)
         SELECT chain_id::text AS "chainId", address, nonce::text AS nonce, hash, raw_transaction AS "rawTransaction", created_at AS "createdAt"
           FROM replaced
         UNION ALL
         SELECT chain_id::text, address, nonce::text, hash, raw_transaction, created_at
           FROM nonce_filler WHERE chain_id = $1 AND address = $2 AND nonce = $3 AND NOT EXISTS (SELECT 1 FROM replaced)`,
        [filler.chainId.toString(), filler.address, filler.nonce.toString(), previousHash, filler.hash, Buffer.from(filler.rawTransaction)],
      );
      const row = result.rows[0]!;
      return { ...row, chainId: BigInt(row.chainId), nonce: BigInt(row.nonce) };
    },
  };
}

export type NonceFillerRepository = ReturnType<typeof createNonceFillerRepository>;
