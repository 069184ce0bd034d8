import { Router } from "express";
import { toError, type Logger } from "@relay/core";

export interface HealthDeps {
  /** Each check resolves when its dependency answers. */
  checks: Record<string, () => Promise<unknown>>;
  /**
   * Checks the gateway can serve without: their failure makes the answer "degraded", still 200,
   * so a balancer that follows /ready keeps the gateway while they are down.
   */
  optional?: readonly string[];
  timeoutMs?: number;
  /** Where a failed check's cause goes: the answer (unauthenticated) only says which one failed. */
  logger: Logger;
}

const withTimeout = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref())]);

/**
 * `/health`: the process answers. `/ready`: the required checks answer (503 otherwise); an
 * optional one that does not makes it 200 "degraded".
 */
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
          // The driver's words name internal hosts, ports and users: for the operator's log only.
          deps.logger.warn({ check: name, err: toError(e) }, "readiness check failed");
          return [name, "unavailable"] as const;
        }
      }),
    );
    const down = entries.filter(([, state]) => state !== "ok").map(([name]) => name);
    const ready = down.every((name) => deps.optional?.includes(name));
    const status = !ready ? "not ready" : down.length > 0 ? "degraded" : "ready";
    res.status(ready ? 200 : 503).json({ status, checks: Object.fromEntries(entries) });
  });
  return router;
}
