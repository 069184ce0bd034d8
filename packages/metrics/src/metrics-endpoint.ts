import type { IncomingMessage, ServerResponse } from "node:http";
import { operatorTokenMatches, toError, type Logger } from "@relay/core";
import type { Registry } from "./registry";

export interface MetricsEndpointSettings {
  registry: Registry;
  /** When set, a scrape must send `Authorization: Bearer <token>` (or Basic with it as password). */
  token: string | undefined;
  logger: Logger;
}

const json = (res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
  res.end(JSON.stringify(body));
};

/**
 * Answers a scrape with the registry in Prometheus' text format. A plain Node request handler,
 * so the gateway (Express) and the workers' small listener serve it the same way.
 */
export function metricsEndpoint(settings: MetricsEndpointSettings) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (settings.token !== undefined && !operatorTokenMatches(req.headers.authorization, settings.token)) {
      json(res, 401, { message: "Metrics need the metrics token: send Authorization: Bearer <METRICS_TOKEN>" }, { "www-authenticate": 'Bearer realm="metrics"' });
      return;
    }
    try {
      const body = await settings.registry.metrics();
      res.writeHead(200, { "content-type": settings.registry.contentType });
      res.end(body);
    } catch (e) {
      settings.logger.error({ err: toError(e) }, "metrics could not be collected");
      json(res, 500, { message: "Metrics could not be collected; see the process log" });
    }
  };
}
