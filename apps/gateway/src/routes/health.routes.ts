import { Router } from "express";
import { toError } from "@relay/core";

export interface HealthDeps {
  /** Each check resolves when its dependency answers. */
  checks: Record<string, () => Promise<unknown>>;
  timeoutMs?: number;
}

const withTimeout = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref())]);

/** `/health`: the process answers. `/ready`: Postgres and Redis answer too (503 otherwise). */
export function healthRoutes(deps: HealthDeps): Router {
  const router = Router();
  router.get("/health", (_req, res) => {
    res.json({ status: "ok" });
  });
  router.get("/ready", async (_req, res) => {
    const entries = await Promise.all(
      Object.entries(deps.checks).map(async ([name, check]) => {
        try {
          await withTimeout(check(), deps.timeoutMs ?? 2000);
          return [name, "ok"] as const;
        } catch (e) {
          return [name, `unavailable: ${toError(e).message}`] as const;
        }
      }),
    );
    const ready = entries.every(([, state]) => state === "ok");
    res.status(ready ? 200 : 503).json({ status: ready ? "ready" : "not ready", checks: Object.fromEntries(entries) });
  });
  return router;
}
