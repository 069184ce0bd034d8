import express, { type RequestHandler } from "express";
import { AppError } from "@relay/core";

const PROTO_KEY = 'Request body has a field named "__proto__", which is not accepted anywhere in a request';

/**
 * JSON.parse keeps a "__proto__" key as an own field, but copying the object (as zod does for
 * records such as `args`) drops it silently or sets a prototype. No field of this API has that
 * name, so it is refused wherever it appears.
 */
function refuseProtoKey(key: string, value: unknown): unknown {
  if (key === "__proto__") throw new SyntaxError(PROTO_KEY);
  return value;
}

/**
 * JSON request bodies up to `limitBytes`, plain or compressed (gzip, deflate, br), without
 * "__proto__" keys. Errors of the
 * parser keep their `type` for the error handler, except one it leaves untyped: a compressed body
 * that does not decompress, reported with zlib's words or just "Bad Request". That one becomes a
 * 400 saying what is wrong.
 */
export function jsonBody(limitBytes: number): RequestHandler {
  const parse = express.json({ limit: limitBytes, type: ["application/json", "application/*+json"], strict: false, reviver: refuseProtoKey });
  return (req, res, next) => {
    parse(req, res, (err?: unknown) => {
      const error = err as { type?: unknown; status?: unknown; message?: unknown } | undefined;
      if (error?.type === "entity.parse.failed" && error.message === PROTO_KEY) {
        next(new AppError("BAD_REQUEST", PROTO_KEY));
        return;
      }
      const encoding = req.headers["content-encoding"];
      if (error && error.type === undefined && error.status === 400 && encoding) {
        next(new AppError("BAD_REQUEST", `Request body is not valid ${JSON.stringify(encoding.slice(0, 40))} data; send it uncompressed, or compressed as its Content-Encoding says`));
        return;
      }
      next(err);
    });
  };
}
