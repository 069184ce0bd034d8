import type { TopUpRecord } from "@relay/db";
import type { TransactionStatus } from "@relay/lifecycle";
import type { FundingStatus, FundingTransaction } from "./funding.schema";

/**
 * Our lifecycle in Syndicate's four funding statuses: not yet sent (PENDING, and PAUSED while the
 * funding wallet cannot pay) is PENDING; a top-up that ended without moving its amount (REVERTED,
 * INVALID, FAILED, CANCELLED, EXPIRED) is FAILED.
 */
const STATUS: { readonly [S in TransactionStatus]: FundingStatus } = {
  PENDING: "PENDING",
  PAUSED: "PENDING",
  SUBMITTED: "SUBMITTED",
  CONFIRMED: "CONFIRMED",
  REVERTED: "FAILED",
  INVALID: "FAILED",
  FAILED: "FAILED",
  CANCELLED: "FAILED",
  EXPIRED: "FAILED",
};

/** A top-up in Syndicate's shape: fields it requires that are not known yet are empty ("" and 0). */
export function toFundingTransaction(t: TopUpRecord): FundingTransaction {
  return {
    id: t.id,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
    chainId: Number(t.chainId),
    projectId: t.projectId,
    fromAddress: t.fromAddress,
    toAddress: t.toAddress,
    amount: t.amount,
    hash: t.hash ?? "",
    signedTxn: t.signedTxn === null ? "" : `0x${t.signedTxn}`,
    block: t.blockNumber === null ? 0 : Number(t.blockNumber),
    status: STATUS[t.status],
  };
}
