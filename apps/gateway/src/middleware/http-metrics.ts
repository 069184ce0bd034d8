import type { Request, RequestHandler } from "express";
import { Counter, Histogram } from "prom-client";
import { metricOnce, type Registry } from "@relay/metrics";
import { areaOf } from "./under-areas";

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * The route a request is counted under: the Express route pattern it reached
 * (`/wallet/project/:projectId/personalSign`), never the raw URL with its ids. A request stopped
 * before a route (401, 429, 413 …) counts under the area it was sent to (`/wallet/*`, the URL's
 * first segment when it is one of AREAS), anything else under `unmatched`: the label has a fixed,
 * small set of values. A 403 (another project's key) is refused inside its route, so it counts
 * under the route pattern.
 */
export function routeLabel(req: Request): string {
  if (req.route && typeof req.route.path === "string") return `${req.baseUrl}${req.route.path}`;
  const area = areaOf(req);
  return AREAS.has(area) ? `${area}/*` : "unmatched";
}

/** The API's and the operator's areas: a request that reaches no route is counted under its area. */
const AREAS = new Set(["/wallet", "/transact", "/webhook", "/admin"]);

/**
 * relay_http_requests_total and relay_http_request_duration_seconds by method, route and status.
 * A response the client abandoned before it was sent counts with status `aborted`.
 */
export function httpMetrics(registry: Registry): RequestHandler {
  const labelNames = ["method", "route", "status"] as const;
  const requests = metricOnce(
    registry,
    "relay_http_requests_total",
    () => new Counter({ name: "relay_http_requests_total", help: "HTTP requests answered by the gateway, by method, route pattern and status", labelNames, registers: [registry] }),
  );
  const duration = metricOnce(
    registry,
    "relay_http_request_duration_seconds",
    () =>
      new Histogram({
        name: "relay_http_request_duration_seconds",
        help: "Time from receiving a request to the end of its response, by method, route pattern and status",
        labelNames,
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        registers: [registry],
      }),
  );
  // The label sets are few (method × route pattern × status): their series are looked up once,
  // not hashed from a labels object on every request.
  const series = new Map<string, { count: () => void; observe: (seconds: number) => void }>();
  const seriesOf = (method: string, route: string, status: string) => {
    const key = `${method} ${route} ${status}`;
    let found = series.get(key);
    if (!found) {
      const labels = { method, route, status };
      const counter = requests.labels(labels);
      const histogram = duration.labels(labels);
      found = { count: () => counter.inc(), observe: (seconds) => histogram.observe(seconds) };
      series.set(key, found);
    }
    return found;
  };
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once("close", () => {
      // An exception here would be thrown from an event handler, outside any request: never let it.
      try {
        const one = seriesOf(
          METHODS.has(req.method) ? req.method : "other",
          routeLabel(req),
          res.writableFinished ? String(res.statusCode) : "aborted",
        );
        one.count();
        one.observe(Number(process.hrtime.bigint() - started) / 1e9);
      } catch {
        // a request not counted
      }
    });
    next();
  };
}
