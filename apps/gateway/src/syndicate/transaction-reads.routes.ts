import { Router, type Request } from "express";
import { z } from "zod";
import { AppError } from "@relay/core";
import type { ReadSearch, TransactionReads } from "@relay/db";
import { assertProjectAccess, principalOf } from "../middleware/auth";
import { linkLogIds } from "../middleware/request-log";
import { parseOr } from "../middleware/validate";
import { projectIdParam } from "../http-schemas";
import { attemptClasses, statusesWithInvalid, toStats } from "./syndicate-status";
import { attemptsQuery, DEFAULT_PAGE_SIZE, requestParams, requestsQuery } from "./transaction-reads.schema";
import { toSyndicateAttempt, toSyndicateTransaction } from "./transaction-reads.response";

export interface TransactionReadRoutesDeps {
  reads: TransactionReads;
}

const UUID = z.uuid();
const searchOf = (text: string | undefined): ReadSearch | undefined =>
  text === undefined ? undefined : { text, uuid: UUID.safeParse(text).success ? text.toLowerCase() : null };

const pagingOf = (q: { page?: number | undefined; limit?: number | undefined }) => {
  const limit = q.limit ?? DEFAULT_PAGE_SIZE;
  return { limit, offset: (q.page ?? 0) * limit };
};

/** The project in the path, after the key is checked against it (403 before any query check). */
function projectOf(req: Request, locals: Record<string, unknown>): string {
  const { projectId } = parseOr(projectIdParam, req.params);
  assertProjectAccess(principalOf(locals), projectId);
  return projectId;
}

/**
 * Syndicate's reads of a project's transaction requests and attempts (wallet.getTransactionRequest,
 * getTransactionRequestsByProject, getTransactionsByProject, getProjectTransactionStats), with its
 * statuses derived from ours (syndicate-status.ts).
 */
export function transactionReadRoutes(deps: TransactionReadRoutesDeps): Router {
  const router = Router();

  router.get("/wallet/project/:projectId/request/:transactionId", async (req, res) => {
    const { projectId, transactionId } = parseOr(requestParams, req.params);
    linkLogIds(res, { transactionId });
    assertProjectAccess(principalOf(res.locals), projectId);
    const request = await deps.reads.findRequest(projectId, transactionId);
    if (!request) throw new AppError("NOT_FOUND", `No transaction ${transactionId} in project ${projectId}`);
    res.json(toSyndicateTransaction(request));
  });

  router.get("/wallet/project/:projectId/requests", async (req, res) => {
    const projectId = projectOf(req, res.locals);
    const q = parseOr(requestsQuery, req.query);
    const { total, requests } = await deps.reads.listRequests(
      projectId,
      { statuses: q.invalid === undefined ? undefined : statusesWithInvalid(q.invalid), search: searchOf(q.search) },
      pagingOf(q),
    );
    res.json({ transactionRequests: requests.map(toSyndicateTransaction), total });
  });

  router.get("/wallet/project/:projectId/transactions", async (req, res) => {
    const projectId = projectOf(req, res.locals);
    const q = parseOr(attemptsQuery, req.query);
    const filtered = q.status !== undefined || q.reverted !== undefined;
    const { total, attempts } = await deps.reads.listAttempts(
      projectId,
      { classes: filtered ? attemptClasses({ statuses: q.status, reverted: q.reverted }) : undefined, search: searchOf(q.search) },
      pagingOf(q),
    );
    res.json({ transactionAttempts: attempts.map(toSyndicateAttempt), total });
  });

  router.get("/wallet/project/:projectId/transactionStats", async (req, res) => {
    const projectId = projectOf(req, res.locals);
    res.json(toStats(await deps.reads.countByStatus(projectId)));
  });

  return router;
}
