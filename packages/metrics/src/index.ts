export { createMetricsRegistry, metricOnce, Registry } from "./registry";
export { jobMetrics } from "./job-metrics";
export type { JobObservationLike } from "./job-metrics";
export { scrapedGauges } from "./scraped-gauges";
export type { ScrapedGauge, ScrapeSource } from "./scraped-gauges";
export { metricsEndpoint } from "./metrics-endpoint";
export type { MetricsEndpointSettings } from "./metrics-endpoint";
export { serveMetrics, serveWorkerMetrics } from "./metrics-server";
export type { MetricsServer, MetricsServerSettings } from "./metrics-server";
