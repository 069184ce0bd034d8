import { parse as parseContentType } from "content-type";
import express, { type RequestHandler } from "express";
import { AppError } from "@relay/core";
import { mayHoldRoundedNumber, withExactNumbers } from "./exact-numbers";

const PROTO_KEY = 'Request body has a field named "__proto__", which is not accepted anywhere in a request';

/**
 * JSON.parse keeps a "__proto__" key as an own field, but copying the object (as zod does for
 * records such as `args`) drops it silently or sets a prototype. No field of this API has that
 * name, so it is refused wherever it appears. Walked with a stack of its own, not by recursion:
 * JSON.parse takes nesting far deeper than the call stack does, and a recursive walk of 10 KB of
 * "[" overflowed it outside any handler and took the process down.
 */
function hasProtoKey(body: unknown): boolean {
  const pending: unknown[] = [body];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== "object" || value === null) continue;
    if (!Array.isArray(value) && Object.prototype.hasOwnProperty.call(value, "__proto__")) return true;
    for (const child of Object.values(value)) if (typeof child === "object" && child !== null) pending.push(child);
  }
  return false;
}

/**
 * Only a body whose raw bytes hold "__proto__", or a \u escape that could spell it, can have such
 * a key: the others are not walked (a reviver on every value cost 5 % of the gateway's CPU).
 */
const SUSPECT = Symbol("body may hold a __proto__ key");
/** The raw body, kept when it may hold a number JSON.parse rounds (exact-numbers.ts). */
const ROUNDED = Symbol("raw body with a number JSON.parse may round");
const inspectRaw = (req: object, _res: unknown, raw: Buffer) => {
  if (raw.includes("__proto__") || raw.includes("\\u")) (req as Record<symbol, boolean>)[SUSPECT] = true;
  if (mayHoldRoundedNumber(raw)) (req as Record<symbol, Buffer>)[ROUNDED] = raw;
};

/**
 * The body's charset when it names one other than UTF-8. body-parser decodes any "utf-*" charset
 * (UTF-16, UTF-32, UTF-7), and the raw-bytes look for "__proto__" above only reads UTF-8: such a
 * body would reach zod with the key unseen (and dropped). Read the way body-parser reads it.
 */
function otherCharset(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const charset = parseContentType(header).parameters.charset?.toLowerCase();
  return charset === undefined || charset === "utf-8" ? undefined : charset;
}

/**
 * JSON request bodies up to `limitBytes`, in UTF-8 (a charset parameter naming another is a 415),
 * plain or compressed (gzip, deflate, br), without "__proto__" keys, with numbers as written
 * (exact-numbers.ts: integers past 2^53 as BigInt, a fraction a double rounds away refused by
 * integer arguments). Errors of the
 * parser keep their `type` for the error handler, except one it leaves untyped: a compressed body
 * that does not decompress, reported with zlib's words or just "Bad Request". That one becomes a
 * 400 saying what is wrong.
 */
export function jsonBody(limitBytes: number): RequestHandler {
  const parse = express.json({ limit: limitBytes, type: ["application/json", "application/*+json"], strict: false, verify: inspectRaw });
  return (req, res, next) => {
    const charset = otherCharset(req.headers["content-type"]);
    if (charset !== undefined) {
      next(Object.assign(new Error(`unsupported charset "${charset.slice(0, 40)}"`), { status: 415, type: "charset.unsupported" }));
      return;
    }
    parse(req, res, (err?: unknown) => {
      // Runs in the parser's callback, outside Express's own try: anything thrown here would end
      // the process, so it goes to the error handler instead.
      try {
        const error = err as { type?: unknown; status?: unknown; message?: unknown } | undefined;
        if (!error && (req as unknown as Record<symbol, boolean>)[SUSPECT] && hasProtoKey(req.body)) {
          next(new AppError("BAD_REQUEST", PROTO_KEY));
          return;
        }
        const raw = (req as unknown as Record<symbol, Buffer | undefined>)[ROUNDED];
        if (!error && raw) req.body = withExactNumbers(raw, req.body);
        const encoding = req.headers["content-encoding"];
        if (error && error.type === undefined && error.status === 400 && encoding) {
          next(new AppError("BAD_REQUEST", `Request body is not valid ${JSON.stringify(encoding.slice(0, 40))} data; send it uncompressed, or compressed as its Content-Encoding says`));
          return;
        }
        next(err);
      } catch (thrown) {
        next(thrown);
      }
    });
  };
}
