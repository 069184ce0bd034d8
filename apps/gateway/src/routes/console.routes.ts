import { existsSync } from "node:fs";
import { join } from "node:path";
import express, { Router, type Response } from "express";

/**
 * The console's own policy: its script and stylesheet from the gateway, calls to the gateway, and
 * nothing else (no inline script or style, no other origin, not framed). Its files are public; what
 * it shows comes from the API with the key the user gives it.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const guard = (res: Response): void => {
  res.set({ "content-security-policy": CONSOLE_CSP, "x-content-type-options": "nosniff", "referrer-policy": "no-referrer", "x-frame-options": "DENY" });
};

/**
 * `/console`: the built app (apps/console, docs/console.md) from `dir`, its assets under
 * /console/assets and index.html for every other path below /console (the app routes itself).
 * Without the files (not built, or `dir` unset) a 503 that says how to build them.
 */
export function consoleRoutes(deps: { dir: string | undefined }): Router {
  const router = Router();
  const index = deps.dir && join(deps.dir, "index.html");
  const built = (): boolean => Boolean(index && existsSync(index));

  router.use("/console", (_req, res, next) => {
    guard(res);
    if (built()) return next();
    res.status(503).json({ message: "The console is not built: run `pnpm build` (or `npm start`, which builds it), or set CONSOLE_DIR to a folder holding its files" });
  });
  if (deps.dir) {
    router.use("/console/assets", express.static(join(deps.dir, "assets"), { index: false, maxAge: 0 }));
  }
  router.use("/console/assets", (req, res) => {
    res.status(404).json({ message: `No console file ${req.path}` });
  });
  router.get(["/console", "/console/{*rest}"], (_req, res) => {
    res.set("cache-control", "no-cache").sendFile(index as string);
  });
  return router;
}
