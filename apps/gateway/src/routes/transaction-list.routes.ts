import { Router } from "express";
import { AppError } from "@relay/core";
import type { ListTransactions } from "@relay/db";
import { assertProjectAccess, principalOf } from "../middleware/auth";
import { parseOr } from "../middleware/validate";
import { decodeCursor, encodeCursor } from "./transaction-list.cursor";
import { DEFAULT_LIST_LIMIT, transactionListParams, transactionListQuery } from "./transaction-list.schema";
import { toTransactionSummary } from "./transactions.response";

export interface TransactionListRoutesDeps {
  listTransactions: ListTransactions;
}

/** GET a project's transactions (contract calls), filtered, newest first, a page at a time. */
export function transactionListRoutes(deps: TransactionListRoutesDeps): Router {
  const router = Router();

  router.get("/transact/project/:projectId/transactions", async (req, res) => {
    const { projectId } = parseOr(transactionListParams, req.params);
    assertProjectAccess(principalOf(res.locals), projectId);
    const q = parseOr(transactionListQuery, req.query);
    const after = q.cursor === undefined ? null : decodeCursor(projectId, q.cursor);
    if (after && "error" in after) throw new AppError("BAD_REQUEST", after.error);
    const limit = q.limit ?? DEFAULT_LIST_LIMIT;
    const filter = { statuses: q.status, chainId: q.chainId, fromAddress: q.fromAddress, createdAfter: q.createdAfter, createdBefore: q.createdBefore };
    const page = await deps.listTransactions(projectId, filter, after, limit);
    res.json({
      transactions: page.transactions.map((t) => toTransactionSummary(t.transaction, t.receipt)),
      nextCursor: page.next && encodeCursor(projectId, page.next),
    });
  });

  return router;
}
