import { describeRevert } from "@relay/chain";
import type { TransactionRecord } from "@relay/db";

/**
 * A revert's reason as the transaction records it: its data decoded (packages/chain's
 * revert-reason.ts) with the request's errorSignatures; the node's own words when it gave no data.
 */
export const revertReason = (tx: Pick<TransactionRecord, "functionSignature" | "errorSignatures">, data: string | null, nodeWords: string): string =>
  data === null ? nodeWords : describeRevert(data, tx);
