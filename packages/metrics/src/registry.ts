import { collectDefaultMetrics, Registry, type Metric } from "prom-client";

/**
 * How often the event-loop lag is sampled, in ms. prom-client's default (10) wakes an idle process
 * a hundred times a second, most of what an idle worker cost; a stall longer than this is still
 * measured in full.
 */
const EVENT_LOOP_SAMPLE_MS = 100;

export { Registry } from "prom-client";

/**
 * The one metrics registry of a process (never prom-client's global one, so tests and several
 * apps in one process do not share counters). `processMetrics` adds Node's standard series
 * (process_cpu_seconds_total, nodejs_heap_size_used_bytes, nodejs_eventloop_lag_seconds ...).
 */
export function createMetricsRegistry(options: { processMetrics: boolean }): Registry {
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  return registry;
}

/**
 * The metric `name` of `registry`, created on first use: several workers (or test set-ups) of one
 * process may ask for the same series, and prom-client refuses to register a name twice.
 */
export function metricOnce<M extends Metric>(registry: Registry, name: string, create: () => M): M {
  return (registry.getSingleMetric(name) as M | undefined) ?? create();
}
