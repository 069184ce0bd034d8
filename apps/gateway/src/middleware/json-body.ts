import express, { type RequestHandler } from "express";
import { AppError } from "@relay/core";

/**
 * JSON request bodies up to `limitBytes`, plain or compressed (gzip, deflate, br). Errors of the
 * parser keep their `type` for the error handler, except one it leaves untyped: a compressed body
 * that does not decompress, reported with zlib's words or just "Bad Request". That one becomes a
 * 400 saying what is wrong.
 */
export function jsonBody(limitBytes: number): RequestHandler {
  const parse = express.json({ limit: limitBytes, type: ["application/json", "application/*+json"], strict: false });
  return (req, res, next) => {
    parse(req, res, (err?: unknown) => {
      const error = err as { type?: unknown; status?: unknown } | undefined;
      const encoding = req.headers["content-encoding"];
      if (error && error.type === undefined && error.status === 400 && encoding) {
        next(new AppError("BAD_REQUEST", `Request body is not valid ${JSON.stringify(encoding.slice(0, 40))} data; send it uncompressed, or compressed as its Content-Encoding says`));
        return;
      }
      next(err);
    });
  };
}
