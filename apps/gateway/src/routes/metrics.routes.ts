import { Router } from "express";
import type { Logger } from "@relay/core";
import { metricsEndpoint, type Registry } from "@relay/metrics";

export interface MetricsRoutesDeps {
  registry: Registry;
  /** Required from scrapes when set. */
  token: string | undefined;
  /** Without a token, production serves no /metrics: its gauges name every project's wallets. */
  production: boolean;
  logger: Logger;
}

/** `GET /metrics` in Prometheus' text format (docs/metrics.md). */
export function metricsRoutes(deps: MetricsRoutesDeps): Router {
  const router = Router();
  if (deps.production && deps.token === undefined) {
    router.get("/metrics", (_req, res) => {
      res.status(404).json({ message: "Metrics are off: in production /metrics is served only with METRICS_TOKEN set" });
    });
    return router;
  }
  const endpoint = metricsEndpoint({ registry: deps.registry, token: deps.token, logger: deps.logger });
  router.get("/metrics", (req, res) => endpoint(req, res));
  return router;
}
