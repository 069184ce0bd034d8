/**
 * What a transaction is for. CALL: a contract call a project asked for (sendTransaction). FUNDING:
 * a top-up of a project wallet from its funding wallet (managed gas, docs/funding.md), a plain
 * transfer the relay decides on its own. Both take the same lifecycle. The Postgres enum
 * "TransactionKind" in prisma/schema.prisma names the same ones (a test in packages/db).
 */
export const TRANSACTION_KINDS = ["CALL", "FUNDING"] as const;

export type TransactionKind = (typeof TRANSACTION_KINDS)[number];
