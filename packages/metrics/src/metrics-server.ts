import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "@relay/core";
import { metricsEndpoint } from "./metrics-endpoint";
import type { Registry } from "./registry";

export interface MetricsServerSettings {
  registry: Registry;
  host: string;
  /** 0 picks a free port (tests); callers that want no listener do not call this. */
  port: number;
  token: string | undefined;
  logger: Logger;
}

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * A worker's own scrape target: `GET /metrics` on a small HTTP listener beside the worker (a worker
 * has no other HTTP server). Anything else is a JSON 404.
 */
export async function serveMetrics(settings: MetricsServerSettings): Promise<MetricsServer> {
  const endpoint = metricsEndpoint(settings);
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method === "GET" && path === "/metrics") {
      void endpoint(req, res);
      return;
    }
    res.writeHead(404, { "content-type": "application/json; charset=utf-8" });
    res.end(JSON.stringify({ message: "Only GET /metrics is served on the metrics port" }));
  });
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(settings.port, settings.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  settings.logger.info({ host: settings.host, port }, "metrics listening");
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A worker's metrics listener as configured (METRICS_PORT 0: none); `close` is safe either way. */
export async function serveWorkerMetrics(
  config: { port: number; host: string; token: string | undefined },
  registry: Registry,
  logger: Logger,
): Promise<{ close(): Promise<void> }> {
  if (config.port === 0) return { close: async () => undefined };
  return serveMetrics({ registry, host: config.host, port: config.port, token: config.token, logger });
}
