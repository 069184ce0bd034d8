import { randomUUID } from "node:crypto";
import { Router, type ErrorRequestHandler } from "express";
import { z } from "zod";
import { AppError, isAppError, type Logger } from "@relay/core";
import type { ReadTransactionSnapshot } from "@relay/db";
import { assertProjectAccess, principalOf } from "../middleware/auth";
import { linkLogIds, requestIdOf } from "../middleware/request-log";
import { parseOr, requireJsonObject } from "../middleware/validate";
import { duplicateRequest, type SendTransactionService } from "../services/send-transaction.service";
import { sendTransactionRequest, transactionParams } from "./transactions.schema";
import { toTransactionResponse } from "./transactions.response";

export interface TransactionRoutesDeps {
  logger: Logger;
  sendTransaction: SendTransactionService;
  /** A transaction with its history and attempts, read as of one moment. */
  readTransaction: ReadTransactionSnapshot;
  /** Whether the project has a transaction with this id. */
  transactionExists: (projectId: string, id: string) => Promise<boolean>;
}

/** The schema's own UUID test (RFC 9562, nil and max included), so the checks ahead of it agree with it. */
const UUID = z.uuid();
const isUuid = (value: unknown): value is string => UUID.safeParse(value).success;

/** POST sendTransaction (the contract's endpoint 1) and a project-scoped read of a transaction. */
export function transactionRoutes(deps: TransactionRoutesDeps): Router {
  const router = Router();

  router.post("/transact/sendTransaction", async (req, res) => {
    const body = requireJsonObject(req.body);
    const principal = principalOf(res.locals);
    // Another project's key is told so (403) whatever else is wrong with the body, as on the
    // routes that name the project in their path; it learns nothing about that project's chains.
    if (isUuid(body.projectId)) assertProjectAccess(principal, body.projectId.toLowerCase());
    // The contract gives a requestId that is not a UUID its own status, ahead of other problems.
    // Null is an omitted requestId (see `omittable`).
    if (body.requestId !== undefined && body.requestId !== null && !isUuid(body.requestId)) {
      throw new AppError("INVALID_REQUEST_ID", "requestId must be a UUID (e.g. 123e4567-e89b-42d3-a456-426614174000), or omitted");
    }
    try {
      const request = parseOr(sendTransactionRequest, body);
      assertProjectAccess(principal, request.projectId);
      // The transaction's id is its requestId, or a new one: known now, so the log line names it.
      const transactionId = request.requestId ?? randomUUID();
      linkLogIds(res, { transactionId });
      res.json(await deps.sendTransaction.send({ ...request, requestId: transactionId }, { reqId: requestIdOf(req), keyId: principal.keyId }));
    } catch (e) {
      throw await asDuplicate(e, body);
    }
  });

  /**
   * A reused requestId is a 409 naming the first transaction whether the body matches or not
   * (DESIGN.md): also when this body is a 400 (the chain since removed, an argument now wrong), so
   * a client retrying an accepted request learns it was accepted. Looked up only on that error
   * path, for a project the key may act for.
   */
  const asDuplicate = async (e: unknown, body: Record<string, unknown>): Promise<unknown> => {
    const { projectId, requestId } = body;
    if (!isAppError(e) || e.code !== "BAD_REQUEST" || typeof projectId !== "string" || typeof requestId !== "string") return e;
    if (!isUuid(projectId) || !isUuid(requestId)) return e;
    const project = projectId.toLowerCase();
    const id = requestId.toLowerCase();
    return (await deps.transactionExists(project, id)) ? duplicateRequest(id) : e;
  };

  router.get("/transact/project/:projectId/transactions/:transactionId", async (req, res) => {
    const { projectId, transactionId } = parseOr(transactionParams, req.params);
    linkLogIds(res, { transactionId });
    assertProjectAccess(principalOf(res.locals), projectId);
    const snapshot = await deps.readTransaction(projectId, transactionId);
    if (!snapshot) throw new AppError("NOT_FOUND", `No transaction ${transactionId} in project ${projectId}`);
    res.json(toTransactionResponse(snapshot.transaction, snapshot.history, snapshot.attempts, snapshot.receipt));
  });

  return router;
}

/**
 * The contract's 500 for sendTransaction has no fields: `{}`. Mounted on the app, after every
 * router (at /transact/sendTransaction), so that it also answers errors raised before the route (a key lookup that cannot reach
 * Postgres); Express passes an error by the routers, never into one. Any status of 500 and above
 * is that 500: the contract has no other 5xx for this endpoint.
 */
export function sendTransactionInternalError(logger: Logger): ErrorRequestHandler {
  return (err, req, res, next) => {
    const status = isAppError(err) ? err.status : typeof (err as { status?: unknown })?.status === "number" ? (err as { status: number }).status : 500;
    if (status < 500 || res.headersSent) return next(err);
    logger.error({ err, reqId: req.id }, "sendTransaction failed");
    res.status(500).json({});
  };
}
