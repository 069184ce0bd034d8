import { randomUUID } from "node:crypto";
import type { Request, RequestHandler, Response } from "express";
import type { Logger } from "@relay/core";
import { REQUEST_ID_PATTERN } from "@relay/queue";
import { routeLabel } from "./http-metrics";

declare module "http" {
  interface IncomingMessage {
    /** The request's id: its valid `x-request-id`, or a new UUID (set by `requestLog`). */
    id?: string;
  }
}

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

/** By status; a request whose client went away before its answer was sent is a warning (its status is whatever was set). */
const levelOf = (statusCode: number, finished: boolean) => (statusCode >= 500 ? "error" : statusCode >= 400 || !finished ? "warn" : "info");

/**
 * One log line per request, written when its response is done (or the client went away first):
 * `req` (id, method, url, remoteAddress), `reqId`, `route` (the pattern, as in the metrics), the linked ids,
 * `res.statusCode` and `responseTime`; level by status. The request id is the client's
 * `x-request-id` when it is a plain id (REQUEST_ID_PATTERN), a new UUID otherwise, and is sent
 * back in the response header.
 *
 * Nothing is built per request beyond one `close` listener: a line below the logger's level costs
 * a level check. pino-http, used before, made a child logger per request (its bindings serialized
 * on every request, whatever the level).
 */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const given = req.headers["x-request-id"];
    const id = typeof given === "string" && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
    req.id = id;
    res.setHeader("x-request-id", id);
    const started = Date.now();
    res.once("close", () => {
      const level = levelOf(res.statusCode, res.writableFinished);
      if (!logger.isLevelEnabled(level)) return;
      logger[level](
        {
          // The client, as TRUST_PROXY lets the proxies in front tell it.
          req: { id, method: req.method, url: req.originalUrl, remoteAddress: req.ip },
          reqId: id,
          route: routeLabel(req),
          ...(res.locals.logIds as Record<string, string> | undefined),
          res: { statusCode: res.statusCode },
          responseTime: Date.now() - started,
          ...(res.writableFinished ? {} : { aborted: true }),
        },
        res.writableFinished ? "request completed" : "request aborted",
      );
    });
    next();
  };
}
