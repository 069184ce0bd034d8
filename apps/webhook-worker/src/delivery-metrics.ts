import { Counter } from "prom-client";
import { metricOnce, type Registry } from "@relay/metrics";
import type { SafeHttpResult } from "@relay/webhooks";

/**
 * What one delivery attempt came to, for metrics: `delivered` (2xx), `gone` (410: registration
 * disabled), `failed_status` (any other HTTP status), `network_error` (no response: DNS, connect,
 * TLS, time-out, broken response), `refused` (the URL or its address is not allowed: SSRF filter),
 * `unsigned` (not sent: the registration's secret does not open, an operator's to mend) or
 * `circuit_open` (not sent: the registration's recent attempts all timed out, receiver-breaker.ts).
 */
export type DeliveryResult = "delivered" | "gone" | "failed_status" | "network_error" | "refused" | "unsigned" | "circuit_open";

const RESULTS: readonly DeliveryResult[] = ["delivered", "gone", "failed_status", "network_error", "refused", "unsigned", "circuit_open"];

export function deliveryResultOf(result: SafeHttpResult): DeliveryResult {
  if (result.error !== undefined) return result.error === "refused-address" || result.error === "bad-url" ? "refused" : "network_error";
  if (result.status >= 200 && result.status < 300) return "delivered";
  return result.status === 410 ? "gone" : "failed_status";
}

/** relay_webhook_delivery_attempts_total{result}; every result starts at 0 so the series exist. */
export function deliveryAttemptMetrics(registry: Registry): (result: DeliveryResult) => void {
  const attempts = metricOnce(
    registry,
    "relay_webhook_delivery_attempts_total",
    () =>
      new Counter({
        name: "relay_webhook_delivery_attempts_total",
        help: "Webhook delivery attempts by result (delivered, gone, failed_status, network_error, refused, unsigned, circuit_open)",
        labelNames: ["result"],
        registers: [registry],
      }),
  );
  for (const result of RESULTS) attempts.inc({ result }, 0);
  return (result) => {
    try {
      attempts.inc({ result });
    } catch {
      // Counting must never change what happens to a delivery.
    }
  };
}
