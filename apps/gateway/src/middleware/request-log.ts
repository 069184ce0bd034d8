import type { IncomingMessage, ServerResponse } from "node:http";
import type { Request, Response } from "express";
import { routeLabel } from "./http-metrics";

/**
 * Names the records a request created or acted on (signatureId, transactionId, eventCallbackId)
 * on its log line, so the line of the job that record's work ran in can be found from it and the
 * other way round (docs/metrics.md, "Logs").
 */
export function linkLogIds(res: Response, ids: Record<string, string>): void {
  res.locals.logIds = { ...(res.locals.logIds as Record<string, string> | undefined), ...ids };
}

/** The id of the request (x-request-id, given or generated), which jobs carry as `reqId`. */
export const requestIdOf = (req: Request): string => String(req.id);

/**
 * Fields of the request's one log line, added when its response is done: `reqId`, the route
 * pattern and the linked ids.
 */
export function requestLogProps(req: IncomingMessage, res: ServerResponse): Record<string, unknown> {
  if (!res.headersSent) return {};
  const request = req as Request;
  const response = res as Response;
  return { reqId: String(request.id), route: routeLabel(request, response), ...(response.locals?.logIds as Record<string, string> | undefined) };
}
