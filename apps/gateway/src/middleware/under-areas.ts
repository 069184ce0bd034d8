import type { NextFunction, Request, RequestHandler, Response } from "express";

/**
 * The first path segment of the request's URL as the client sent it (`/wallet` of
 * `/Wallet/project/…?x=1`), lower-cased: the same wherever in the app it is asked, also inside a
 * mounted router, where Express has rewritten `req.url`. A target in absolute form
 * (`POST http://host/wallet/… HTTP/1.1`), which Express routes by its path, is read by that path
 * (`req.path`, Express's own parse; asked at the app's top level, where `req.url` is the
 * original): read raw, its area was "http:", and authentication was skipped.
 */
export function areaOf(req: Request): string {
  const raw = req.originalUrl ?? req.url;
  const url = raw.startsWith("/") ? raw : req.path;
  let end = url.indexOf("/", 1);
  const query = url.indexOf("?");
  if (end === -1 || (query !== -1 && query < end)) end = query;
  return (end === -1 ? url : url.slice(0, end)).toLowerCase();
}

/** Runs one handler as Express would: a thrown error or a rejected promise goes to `next`. */
function run(handler: RequestHandler, req: Request, res: Response, next: NextFunction): void {
  try {
    const result = handler(req, res, next) as unknown;
    if (result && typeof (result as Promise<unknown>).then === "function") {
      (result as Promise<unknown>).then(undefined, (err: unknown) => next(err ?? new Error("Rejected promise")));
    }
  } catch (err) {
    next(err);
  }
}

/**
 * `handlers`, one after the other, for requests whose first path segment is one of `areas`
 * (matched as Express matches a mount path: case-insensitively, `/wallet` and `/wallet/…`); other
 * requests pass by. One layer in the app's stack instead of a mounted one per handler: Express
 * matches a mount path against every request that reaches it and rewrites `req.url` around each
 * mounted handler, which on the API's hot path cost more than the handlers' own checks.
 */
export function underAreas(areas: readonly string[], ...handlers: RequestHandler[]): RequestHandler {
  const wanted = new Set(areas.map((a) => a.toLowerCase()));
  return (req, res, next) => {
    if (!wanted.has(areaOf(req))) return next();
    let i = 0;
    const step: NextFunction = (err?: unknown) => {
      // As between mounted layers: "route" (skip the rest of a route's handlers) only goes on.
      if (err !== undefined && err !== null && err !== "route") return next(err);
      const handler = handlers[i++];
      if (!handler) return next();
      run(handler, req, res, step);
    };
    step();
  };
}
