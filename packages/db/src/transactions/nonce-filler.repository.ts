import type { TransactionStatus } from "@relay/lifecycle";
import type { Sql } from "../client";

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
  /** When these bytes were signed: the filler's creation, or its latest replacement. */
  signedAt: Date;
}

const FILLER_COLUMNS = `chain_id::text AS "chainId", address, nonce::text AS nonce, hash, raw_transaction AS "rawTransaction", created_at AS "createdAt", signed_at AS "signedAt"`;

/**
 * `changed` (a CTE named "changed" that writes the nonce's row and returns it) and the row as it
 * is now: the changed one, or the stored one when nothing changed. $1 chain, $2 address, $3 nonce.
 */
const CHANGED_OR_STORED = (changed: string) => `
  WITH changed AS (${changed} RETURNING *)
  SELECT ${FILLER_COLUMNS} FROM changed
  UNION ALL
  SELECT ${FILLER_COLUMNS} FROM nonce_filler WHERE chain_id = $1 AND address = $2 AND nonce = $3 AND NOT EXISTS (SELECT 1 FROM changed)`;

const RECORD = CHANGED_OR_STORED(`
  INSERT INTO nonce_filler (chain_id, address, nonce, hash, raw_transaction, status)
  VALUES ($1, $2, $3, $4, $5, 'SIGNED')
  ON CONFLICT (chain_id, address, nonce) DO NOTHING`);

const REPLACE = CHANGED_OR_STORED(`
  UPDATE nonce_filler SET hash = $5, raw_transaction = $6, signed_at = now()
   WHERE chain_id = $1 AND address = $2 AND nonce = $3 AND hash = $4`);

type FillerRow = Omit<NonceFillerRecord, "chainId" | "nonce"> & { chainId: string; nonce: string };
const toFiller = (row: FillerRow): NonceFillerRecord => ({ ...row, chainId: BigInt(row.chainId), nonce: BigInt(row.nonce) });

export function createNonceFillerRepository(sql: Sql) {
  const one = async (text: string, params: unknown[]): Promise<NonceFillerRecord | null> => {
    const row = (await sql.query<FillerRow>(text, params)).rows[0];
    return row ? toFiller(row) : null;
  };
  const at = (f: Pick<NonceFillerRecord, "chainId" | "address" | "nonce">) => [f.chainId.toString(), f.address, f.nonce.toString()];
  const find = (chainId: bigint, address: string, nonce: bigint): Promise<NonceFillerRecord | null> =>
    one(`SELECT ${FILLER_COLUMNS} FROM nonce_filler WHERE chain_id = $1 AND address = $2 AND nonce = $3`, at({ chainId, address, nonce }));
  /**
   * The nonce's row as committed now, read in a statement of its own. When a write above met a
   * concurrent one (an insert that waited for another's commit, an update that lost the swap), its
   * statement's snapshot predates that commit: the stored row it returns is missing or the old one.
   */
  const current = async (f: Pick<NonceFillerRecord, "chainId" | "address" | "nonce">): Promise<NonceFillerRecord> => {
    const row = await find(f.chainId, f.address, f.nonce);
    if (!row) throw new Error(`no filler stored for nonce ${f.nonce} of ${f.address} on chain ${f.chainId}`);
    return row;
  };

  return {
    /** The status of the transaction bound to this nonce, or null when none is. */
    holderStatus: async (chainId: bigint, address: string, nonce: bigint): Promise<TransactionStatus | null> => {
      const result = await sql.query<{ status: TransactionStatus }>(
        `SELECT status FROM transaction WHERE chain_id = $1 AND from_address = $2 AND nonce = $3`,
        [chainId.toString(), address, nonce.toString()],
      );
      return result.rows[0]?.status ?? null;
    },
    /**
     * The transaction bound to this nonce when it is CONFIRMED or REVERTED and has been for at
     * least `finalForSeconds`, with the signed bytes of its mined attempt; null otherwise.
     */
    minedHolder: async (
      chainId: bigint,
      address: string,
      nonce: bigint,
      finalForSeconds: number,
    ): Promise<{ projectId: string; transactionId: string; status: TransactionStatus; hash: string; rawTransaction: Uint8Array } | null> => {
      const result = await sql.query<{ projectId: string; transactionId: string; status: TransactionStatus; hash: string; rawTransaction: Buffer }>(
        `SELECT t.project_id AS "projectId", t.id AS "transactionId", t.status, a.hash, a.raw_transaction AS "rawTransaction"
           FROM transaction t JOIN transaction_attempt a ON a.hash = t.hash
          WHERE t.chain_id = $1 AND t.from_address = $2 AND t.nonce = $3
            AND t.status IN ('CONFIRMED', 'REVERTED') AND t.updated_at < now() - make_interval(secs => $4)`,
        [chainId.toString(), address, nonce.toString(), finalForSeconds],
      );
      return result.rows[0] ?? null;
    },
    /** The filler stored for this nonce, or null. */
    find,
    /** Stores a signed filler unless one exists for the nonce; returns the one stored. */
    record: async (filler: Omit<NonceFillerRecord, "createdAt" | "signedAt">): Promise<NonceFillerRecord> =>
      (await one(RECORD, [...at(filler), filler.hash, Buffer.from(filler.rawTransaction)])) ?? (await current(filler)),
    /**
     * Replaces the stored filler of a nonce with new bytes (the node refused the stored ones on
     * their fees), only if it is still `previousHash`: of replicas re-pricing at once, one wins and
     * the others go on with its bytes. Returns the filler stored now.
     */
    replace: async (previousHash: string, filler: Omit<NonceFillerRecord, "createdAt" | "signedAt">): Promise<NonceFillerRecord> => {
      const row = await one(REPLACE, [...at(filler), previousHash, filler.hash, Buffer.from(filler.rawTransaction)]);
      return row && row.hash !== previousHash ? row : current(filler);
    },
  };
}

export type NonceFillerRepository = ReturnType<typeof createNonceFillerRepository>;
