import type { RequestHandler } from "express";
import { AppError } from "@relay/core";

/** HTTP/1.1 requires a Host header (RFC 9112 §3.2); a request without one is a 400. */
export const requireHost: RequestHandler = (req, _res, next) => {
  if (req.httpVersion === "1.1" && req.headers.host === undefined) {
    throw new AppError("BAD_REQUEST", "HTTP/1.1 requests must carry a Host header");
  }
  next();
};
