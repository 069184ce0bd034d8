import type { TransactionStatus } from "@relay/lifecycle";
import type { Sql } from "../client";
import { LIST_TRANSACTIONS } from "./transaction-list.sql";
import { toReceipt, type ReceiptJson, type TransactionReceipt } from "./transaction-receipt";
import { toTransaction, type TransactionRecord, type TransactionRow } from "./transaction-record";

export interface TransactionListFilter {
  statuses?: readonly TransactionStatus[] | undefined;
  chainId?: bigint | undefined;
  /** The sending wallet, any case. */
  fromAddress?: string | undefined;
  /** Created at or after. */
  createdAfter?: Date | undefined;
  /** Created strictly before. */
  createdBefore?: Date | undefined;
}

/** Where a page starts: strictly after (older than) this row. */
export interface TransactionListPosition {
  createdAt: Date;
  id: string;
}

export interface ListedTransaction {
  transaction: TransactionRecord;
  receipt: TransactionReceipt | null;
}

export interface TransactionListPage {
  transactions: ListedTransaction[];
  /** The last row's position when more rows follow it; null on the last page. */
  next: TransactionListPosition | null;
}

/** A project's contract calls, newest first, a page at a time (docs/transactions.md, "Listing transactions"). */
export function createTransactionList(sql: Sql) {
  return async (projectId: string, filter: TransactionListFilter, after: TransactionListPosition | null, limit: number): Promise<TransactionListPage> => {
    const params = [
      projectId,
      filter.statuses ?? null,
      filter.chainId?.toString() ?? null,
      filter.fromAddress ?? null,
      filter.createdAfter ?? null,
      filter.createdBefore ?? null,
      after?.createdAt ?? null,
      after?.id ?? null,
      limit + 1, // one more than the page: whether another page follows
    ];
    const { rows } = await sql.query<TransactionRow & { receipt: ReceiptJson | null }>({ name: "transaction.list", text: LIST_TRANSACTIONS }, params);
    const page = rows.slice(0, limit).map((row) => ({ transaction: toTransaction(row), receipt: toReceipt(row.receipt) }));
    const last = page.at(-1)?.transaction;
    return { transactions: page, next: rows.length > limit && last ? { createdAt: last.createdAt, id: last.id } : null };
  };
}

export type ListTransactions = ReturnType<typeof createTransactionList>;
