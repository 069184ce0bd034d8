import { AppError, createBatcher, type BatcherOptions } from "@relay/core";
import type { Sql } from "../client";
import { attemptParams, toAttempt, type AttemptRecord, type AttemptRow, type NewAttempt } from "./attempt-record";
import { ATTEMPT_BY_HASH, ATTEMPTS_OF, MARK_BROADCAST, RECORD_ATTEMPTS, SUBMITTED_BY_ATTEMPT_HASH, ANY_IN_FLIGHT_ON_CHAIN } from "./attempt.sql";

interface TransactionKey {
  projectId: string;
  transactionId: string;
}

/**
 * A transaction's signed attempts: stored before they are broadcast, marked when first broadcast,
 * listed oldest first. With `coalesce`, concurrent reads share one statement, and so do concurrent
 * inserts (one commit: each caller's broadcast waits for it).
 */
export function createAttemptStore(sql: Sql, coalesce?: BatcherOptions) {
  const attemptsOfMany = async (keys: readonly TransactionKey[]): Promise<AttemptRecord[][]> => {
    const { rows } = await sql.query<AttemptRow>({ name: "attempt.attemptsOf", text: ATTEMPTS_OF }, [
      keys.map((k) => k.projectId),
      keys.map((k) => k.transactionId),
    ]);
    const byKey = new Map<string, AttemptRecord[]>();
    for (const row of rows) {
      const key = `${row.projectId}/${row.transactionId}`;
      const list = byKey.get(key) ?? [];
      list.push(toAttempt(row));
      byKey.set(key, list);
    }
    return keys.map((k) => byKey.get(`${k.projectId.toLowerCase()}/${k.transactionId.toLowerCase()}`) ?? []);
  };
  const attemptsOf = coalesce
    ? createBatcher(attemptsOfMany, coalesce)
    : async (key: TransactionKey) => (await attemptsOfMany([key]))[0]!;

  /** Inserts each attempt unless its hash is stored; per attempt, the inserted record or null. */
  const insertMany = async (inputs: readonly NewAttempt[]): Promise<(AttemptRecord | null)[]> => {
    const params = inputs.map(attemptParams);
    const { rows } = await sql.query<AttemptRow>(
      { name: "attempt.recordMany", text: RECORD_ATTEMPTS },
      params[0]!.map((_, column) => params.map((p) => p[column])),
    );
    const inserted = new Map(rows.map((row) => [row.hash, toAttempt(row)]));
    return inputs.map((input) => {
      const record = inserted.get(input.hash);
      inserted.delete(input.hash); // the same hash twice in a batch: the second reads the first
      return record ?? null;
    });
  };
  const insertOne = coalesce
    ? createBatcher(insertMany, coalesce)
    : async (input: NewAttempt) => (await insertMany([input]))[0]!;

  return {
    /** The transaction's signed attempts, oldest first (the last one is the live one). */
    attempts: (projectId: string, transactionId: string): Promise<AttemptRecord[]> => attemptsOf({ projectId, transactionId }),

    /**
     * Stores a signed transaction before it is broadcast. Storing the same signed transaction
     * again (same hash: deterministic signatures) returns the stored one; a hash stored for
     * another transaction is refused.
     */
    recordAttempt: async (input: NewAttempt): Promise<AttemptRecord> => {
      const inserted = await insertOne(input);
      if (inserted) return inserted;
      const stored = (await sql.query<AttemptRow>({ name: "attempt.byHash", text: ATTEMPT_BY_HASH }, [input.hash])).rows[0];
      if (!stored && !input.cancel) {
        // Not inserted, and not stored: a cancel was asked for since the transaction was read. The
        // next run of the job reads it and acts on the cancel instead.
        throw new AppError("CONFLICT", `a cancel of transaction ${input.transactionId} was asked for while its attempt was signed`, { retryable: true });
      }
      if (!stored || stored.projectId !== input.projectId.toLowerCase() || stored.transactionId !== input.transactionId.toLowerCase()) {
        throw new AppError("INTERNAL", `attempt ${input.hash} is stored for another transaction`);
      }
      return toAttempt(stored);
    },

    /**
     * The SUBMITTED transactions of `chainId` one of whose attempts has a hash among `hashes` (lower
     * case): one statement however many hashes.
     */
    submittedWithAttemptIn: async (chainId: bigint, hashes: readonly string[]): Promise<TransactionKey[]> =>
      hashes.length === 0
        ? []
        : (await sql.query<TransactionKey>({ name: "attempt.submittedWithAttemptIn", text: SUBMITTED_BY_ATTEMPT_HASH }, [chainId.toString(), hashes])).rows,

    /** Whether any transaction on the chain is PENDING or SUBMITTED (not final, not paused). */
    anyInFlightOn: async (chainId: bigint): Promise<boolean> =>
      (await sql.query<{ any: boolean }>({ name: "attempt.anyInFlightOn", text: ANY_IN_FLIGHT_ON_CHAIN }, [chainId.toString()])).rows[0]!.any,

    /** Records the first broadcast of an attempt; false when unknown or already recorded. */
    markAttemptBroadcast: async (hash: string): Promise<boolean> =>
      ((await sql.query({ name: "attempt.markBroadcast", text: MARK_BROADCAST }, [hash])).rowCount ?? 0) === 1,
  };
}
