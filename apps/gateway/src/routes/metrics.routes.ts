import { Router } from "express";
import type { Logger } from "@relay/core";
import { metricsEndpoint, type Registry } from "@relay/metrics";
import { nonPublicRange } from "@relay/webhooks";

export interface MetricsRoutesDeps {
  registry: Registry;
  /** Required from scrapes when set. */
  token: string | undefined;
  /** Without a token, production serves no /metrics: its gauges name every project's wallets. */
  production: boolean;
  /** Where the gateway listens: without a token, /metrics is served only on a loopback address. */
  host: string;
  logger: Logger;
}

/** `localhost`, or an address in the loopback range (127/8, ::1, ::ffff:127.x), judged by the table the webhook filter uses. */
const isLoopback = (host: string) => host === "localhost" || nonPublicRange(host) === "loopback";

/** `GET /metrics` in Prometheus' text format (docs/metrics.md). */
export function metricsRoutes(deps: MetricsRoutesDeps): Router {
  const router = Router();
  // Without a token only where no one else can reach it: not in production (a proxy in front
  // passes every path), and not on a gateway listening beyond loopback whatever NODE_ENV says.
  const off =
    deps.token === undefined &&
    (deps.production
      ? "in production /metrics is served only with METRICS_TOKEN set"
      : !isLoopback(deps.host)
        ? "the gateway listens beyond loopback: /metrics is served there only with METRICS_TOKEN set"
        : null);
  if (off) {
    // The answer goes to anyone who asks: it does not name the address; the log does.
    deps.logger.warn({ host: deps.host, production: deps.production }, `/metrics is off: ${off}`);
    router.get("/metrics", (_req, res) => {
      res.status(404).json({ message: `Metrics are off: ${off}` });
    });
    return router;
  }
  const endpoint = metricsEndpoint({ registry: deps.registry, token: deps.token, logger: deps.logger });
  router.get("/metrics", (req, res) => endpoint(req, res));
  return router;
}
