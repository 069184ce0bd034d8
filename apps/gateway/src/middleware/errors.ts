import type { ErrorRequestHandler, RequestHandler } from "express";
import { isAppError, toError, type Logger } from "@relay/core";

/** Errors raised by Express' body parser carry `type` and `status`. */
interface ParserError extends Error {
  type?: string;
  status?: number;
  limit?: number;
}

const parserMessages: Record<string, (e: ParserError) => [number, string]> = {
  "entity.too.large": (e) => [413, `Request body is larger than the ${e.limit ?? ""} byte limit`.replace("  ", " ")],
  "entity.parse.failed": (e) => [400, `Request body is not valid JSON: ${e.message}`],
  "encoding.unsupported": () => [415, "Content-Encoding is not supported; send the body uncompressed"],
  "charset.unsupported": () => [415, "Only UTF-8 JSON bodies are accepted"],
  "request.aborted": () => [400, "The request body was aborted before it was complete"],
  "request.size.invalid": () => [400, "The request body's length did not match Content-Length"],
};

/**
 * The only place that maps errors to HTTP. Every answer is JSON with `message` (sendTransaction's
 * 500 is the contract's `{}`, answered by that route's own handler); a 500 never carries internal
 * detail (it is logged with the request id instead).
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const error = toError(err) as ParserError;
    if (res.headersSent) {
      req.socket.destroy();
      return;
    }
    const parser = error.type ? parserMessages[error.type] : undefined;
    if (parser) {
      const [status, message] = parser(error);
      res.status(status).json({ message });
      return;
    }
    if (isAppError(error)) {
      if (error.status >= 500) logger.error({ err: error, code: error.code, reqId: req.id }, "request failed");
      res.status(error.status).json({ message: error.message, ...error.details });
      return;
    }
    if (typeof error.status === "number" && error.status >= 400 && error.status < 500) {
      // Express' own 4xx errors (e.g. "Failed to decode param '…'") quote the request.
      res.status(error.status).json({ message: error.message.length > 300 ? `${error.message.slice(0, 300)}…` : error.message });
      return;
    }
    logger.error({ err: error, reqId: req.id }, "unexpected error");
    res.status(500).json({ message: "Internal error; the request was not completed. Retry later." });
  };
}

export const notFound: RequestHandler = (req, res) => {
  const path = req.path.length > 200 ? `${req.path.slice(0, 200)}…` : req.path;
  res.status(404).json({ message: `No route for ${req.method} ${path}; see /docs for the API` });
};
