import { Histogram } from "prom-client";
import { metricOnce, type Registry } from "./registry";

/** The shape of packages/queue's JobObservation (kept structural: this package does not import the queue). */
export interface JobObservationLike {
  queue: string;
  outcome: string;
  durationMs: number;
  latencyMs?: number;
}

/** Seconds, from a fast signature to a transaction that waits minutes for confirmations. */
const PROCESSING_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const LATENCY_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 3600];

/**
 * Per queue (a fixed set, the job catalog) and outcome (four values):
 * - relay_job_duration_seconds: how long one run of a job took in the worker;
 * - relay_job_latency_seconds: from the time the job was first due until it finished (completed
 *   or failed for good), waiting and retries included.
 */
export function jobMetrics(registry: Registry): { observe(observation: JobObservationLike): void } {
  const duration = metricOnce(
    registry,
    "relay_job_duration_seconds",
    () =>
      new Histogram({
        name: "relay_job_duration_seconds",
        help: "Processing time of one run of a job, by queue and outcome (completed, run_again, retrying, failed)",
        labelNames: ["queue", "outcome"],
        buckets: PROCESSING_BUCKETS,
        registers: [registry],
      }),
  );
  const latency = metricOnce(
    registry,
    "relay_job_latency_seconds",
    () =>
      new Histogram({
        name: "relay_job_latency_seconds",
        help: "Time from when a job was first due (enqueued) until it finished, by queue and outcome (completed, failed)",
        labelNames: ["queue", "outcome"],
        buckets: LATENCY_BUCKETS,
        registers: [registry],
      }),
  );
  return {
    observe: ({ queue, outcome, durationMs, latencyMs }) => {
      duration.observe({ queue, outcome }, durationMs / 1000);
      if (latencyMs !== undefined) latency.observe({ queue, outcome }, latencyMs / 1000);
    },
  };
}
