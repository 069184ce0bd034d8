import { randomUUID } from "node:crypto";
import { Router, type ErrorRequestHandler } from "express";
import { AppError, isAppError, type Logger } from "@relay/core";
import type { TransactionRepository } from "@relay/db";
import { assertProjectAccess, principalOf } from "../middleware/auth";
import { linkLogIds, requestIdOf } from "../middleware/request-log";
import { parseOr, requireJsonObject } from "../middleware/validate";
import type { SendTransactionService } from "../services/send-transaction.service";
import { sendTransactionRequest, transactionParams } from "./transactions.schema";
import { toTransactionResponse } from "./transactions.response";

export interface TransactionRoutesDeps {
  logger: Logger;
  sendTransaction: SendTransactionService;
  transactions: Pick<TransactionRepository, "findById" | "history" | "attempts">;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** POST sendTransaction (the contract's endpoint 1) and a project-scoped read of a transaction. */
export function transactionRoutes(deps: TransactionRoutesDeps): Router {
  const router = Router();

  router.post("/transact/sendTransaction", async (req, res) => {
    const body = requireJsonObject(req.body);
    // The contract gives a requestId that is not a UUID its own status, ahead of other problems.
    if ("requestId" in body && (typeof body.requestId !== "string" || !UUID.test(body.requestId))) {
      throw new AppError("INVALID_REQUEST_ID", "requestId must be a UUID (e.g. 123e4567-e89b-42d3-a456-426614174000), or omitted");
    }
    const request = parseOr(sendTransactionRequest, body);
    assertProjectAccess(principalOf(res.locals), request.projectId);
    // The transaction's id is its requestId, or a new one: known now, so the log line names it.
    const transactionId = request.requestId ?? randomUUID();
    linkLogIds(res, { transactionId });
    res.json(await deps.sendTransaction.send({ ...request, requestId: transactionId }, { reqId: requestIdOf(req) }));
  });

  // The contract's 500 for sendTransaction has no fields.
  const internalErrorWithoutFields: ErrorRequestHandler = (err, req, res, next) => {
    const status = isAppError(err) ? err.status : 500;
    if (status >= 500 && !res.headersSent) {
      deps.logger.error({ err, reqId: req.id }, "sendTransaction failed");
      res.status(500).json({});
      return;
    }
    next(err);
  };
  router.use("/transact/sendTransaction", internalErrorWithoutFields);

  router.get("/transact/project/:projectId/transactions/:transactionId", async (req, res) => {
    const { projectId, transactionId } = parseOr(transactionParams, req.params);
    linkLogIds(res, { transactionId });
    assertProjectAccess(principalOf(res.locals), projectId);
    const tx = await deps.transactions.findById(projectId, transactionId);
    if (!tx) throw new AppError("NOT_FOUND", `No transaction ${transactionId} in project ${projectId}`);
    const [history, attempts] = await Promise.all([deps.transactions.history(projectId, transactionId), deps.transactions.attempts(projectId, transactionId)]);
    res.json(toTransactionResponse(tx, history, attempts));
  });

  return router;
}
