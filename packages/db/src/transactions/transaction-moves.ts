import { randomUUID } from "node:crypto";
import { createBatcher, type BatcherOptions } from "@relay/core";
import { assertCanMove, ERROR_STATUSES, type TransactionStatus } from "@relay/lifecycle";
import type { Sql } from "../client";
import type { TransactionReceipt } from "./transaction-receipt";
import { MOVE_MANY, NOTE_MINED } from "./transaction.sql";

/** Columns a move may set with the status. A key left out keeps its value; null clears it. */
export interface MoveFields {
  fromAddress?: string | null;
  nonce?: bigint | null;
  gasLimit?: bigint | null;
  hash?: string | null;
  blockNumber?: bigint | null;
  /** The raw revert data behind `error`, 0x-hex (null clears it). */
  revertData?: string | null;
  /** The final attempt's receipt (CONFIRMED, REVERTED): written once, with the move that makes it final. */
  receipt?: TransactionReceipt;
  /** Defaults to `reason` when moving to INVALID, PAUSED, REVERTED or FAILED, to null otherwise. */
  error?: string | null;
}

export interface Move {
  from: TransactionStatus;
  to: TransactionStatus;
  /** Recorded in the history and sent in the event. */
  reason?: string | null;
  set?: MoveFields;
  /** The hash of an attempt first broadcast just now: marked broadcast in the same commit as the move. */
  markBroadcast?: string;
}

interface MoveRequest {
  projectId: string;
  id: string;
  move: Move;
  eventId: string;
}

/** MoveFields as MOVE_MANY reads them: only present keys, integers as decimal strings. */
function moveFields(set: MoveFields): Record<string, string | null> {
  const fields: Record<string, string | null> = {};
  for (const [key, value] of Object.entries(set)) {
    if (key === "error" || key === "receipt" || value === undefined) continue;
    fields[key] = value === null ? null : String(value);
  }
  if (set.receipt) {
    const r = set.receipt;
    Object.assign(fields, {
      receiptBlockHash: r.blockHash,
      receiptGasUsed: String(r.gasUsed),
      receiptEffectiveGasPriceWei: r.effectiveGasPriceWei === null ? null : String(r.effectiveGasPriceWei),
      receiptL1FeeWei: r.l1FeeWei === null ? null : String(r.l1FeeWei),
      receiptFeeWei: r.feeWei === null ? null : String(r.feeWei),
      receiptLogCount: String(r.logCount),
    });
  }
  return fields;
}

/**
 * Status moves: `from` → `to` if the transaction is still in `from`, with its status change and
 * outbox event in the same commit; false when it is not (another worker moved it first). With
 * `coalesce`, the moves of concurrent jobs share one statement and one commit.
 */
export function createTransactionMoves(sql: Sql, coalesce?: BatcherOptions) {
  const moveMany = async (requests: readonly MoveRequest[]): Promise<boolean[]> => {
    const errorOf = ({ move }: MoveRequest) => {
      const set = move.set ?? {};
      return set.error !== undefined ? set.error : ERROR_STATUSES.includes(move.to) ? (move.reason ?? null) : null;
    };
    const { rows } = await sql.query<{ eventId: string }>({ name: "transaction.moveMany", text: MOVE_MANY }, [
      requests.map((r) => r.projectId),
      requests.map((r) => r.id),
      requests.map((r) => r.move.from),
      requests.map((r) => r.move.to),
      requests.map((r) => JSON.stringify(moveFields(r.move.set ?? {}))),
      requests.map(errorOf),
      requests.map((r) => r.move.reason ?? null),
      requests.map((r) => r.eventId),
      requests.map((r) => r.move.markBroadcast ?? null),
    ]);
    const moved = new Set(rows.map((r) => r.eventId));
    return requests.map((r) => moved.has(r.eventId));
  };
  const moveOne = coalesce ? createBatcher(moveMany, coalesce) : async (request: MoveRequest) => (await moveMany([request]))[0]!;

  return {
    move: async (projectId: string, id: string, move: Move): Promise<boolean> => {
      assertCanMove(move.from, move.to);
      return moveOne({ projectId, id, move, eventId: randomUUID() });
    },

    /**
     * Notes, on a SUBMITTED transaction, the attempt the tx-worker sees in a block before it has
     * the chain's confirmations (null: none is, as after a reorganisation). Not a move: no status
     * change, no event, and `updated_at` is left alone (the reconciler's clock).
     */
    noteMined: async (projectId: string, id: string, seen: { hash: string; blockNumber: bigint } | null): Promise<void> => {
      await sql.query({ name: "transaction.noteMined", text: NOTE_MINED }, [projectId, id, seen?.hash ?? null, seen?.blockNumber.toString() ?? null]);
    },
  };
}
