import type { Kek } from "@relay/secrets";
import type { EventCallbackRepository, WebhookDeliveryRepository } from "@relay/db";
import { runAgainIn, type Processor, type RunAgain } from "@relay/queue";
import { openPreviousWebhookSecret, openWebhookSecret, signDelivery, type SafeHttpClient } from "@relay/webhooks";
import { deliveryResultOf, type DeliveryResult } from "../delivery-metrics";
import { nextDelayMs } from "../retry-schedule";

export interface DeliverWebhookDeps {
  deliveries: WebhookDeliveryRepository;
  callbacks: Pick<EventCallbackRepository, "disable">;
  http: Pick<SafeHttpClient, "post">;
  keyring: Kek;
  retryScheduleMs: readonly number[];
  now: () => number;
  /** Told the result of every attempt (metrics). */
  onAttempt?: (result: DeliveryResult) => void;
}

/** How soon to look again when an older delivery of the same subject holds this one back. */
const ORDER_WAIT_MS = 250;

/**
 * One attempt to deliver one event to one registration: Standard Webhooks signature (the
 * `webhook-id` is the event id on every attempt, the timestamp new each time; two signatures
 * during a secret rotation's grace period), POST through the SSRF-safe client, one stats entry
 * per attempt. 2xx delivers; 410 disables the registration; anything else, or no answer, tries
 * again on the schedule until it runs out.
 */
export function createDeliverWebhookProcessor(deps: DeliverWebhookDeps): Processor<"deliverWebhook"> {
  return async ({ deliveryId }, { logger }): Promise<RunAgain | { status: string }> => {
    const input = await deps.deliveries.findForDelivery(deliveryId);
    if (!input) return { status: "missing" };
    const { delivery, event, registration, heldBack } = input;
    if (delivery.status !== "PENDING") return { status: delivery.status };
    if (registration.disabledAt) {
      await deps.deliveries.abandon(delivery.id);
      return { status: "ABANDONED" };
    }
    if (heldBack) return runAgainIn(ORDER_WAIT_MS);
    const dueIn = (delivery.nextAttemptAt?.getTime() ?? 0) - deps.now();
    if (dueIn > 0) return runAgainIn(dueIn);

    // Sign exactly the bytes that are sent (a jsonb payload comes back with its keys reordered).
    // Within a rotation's grace period also with the secret it replaced: a receiver that has not
    // switched yet still verifies (docs/webhooks.md, "Rotating a secret").
    const body = JSON.stringify(event.payload);
    const timestamp = new Date(deps.now());
    const headers = signDelivery({
      secret: openWebhookSecret(deps.keyring, registration),
      previousSecret: openPreviousWebhookSecret(deps.keyring, registration, timestamp),
      msgId: event.id,
      timestamp,
      body,
    });
    const result = await deps.http.post(registration.callbackUrl, body, { ...headers });
    deps.onAttempt?.(deliveryResultOf(result));
    const data = { durationMs: result.durationMs, ...("error" in result ? { error: `${result.error}: ${(result as { message: string }).message}` } : {}) };
    // Fields for this attempt's log line (not a child logger: one per attempt costs more than the line;
    // the job's logger already names the delivery).
    const fields = { eventId: event.id, eventCallbackId: registration.id, responseStatus: result.status };

    if (result.status >= 200 && result.status < 300) {
      await deps.deliveries.recordAttempt(delivery.id, { responseStatus: result.status, data, next: { status: "DELIVERED" } });
      logger.info(fields, "webhook delivered");
      return { status: "DELIVERED" };
    }
    if (result.status === 410) {
      // Disable first: that abandons every PENDING delivery to it in one statement. Marking this one
      // ABANDONED first would release a younger delivery it holds back, which could still be sent.
      await deps.callbacks.disable(registration.id, "the receiver answered 410 Gone");
      await deps.deliveries.recordAttempt(delivery.id, { responseStatus: 410, data, next: { status: "ABANDONED" } });
      logger.warn(fields, "receiver answered 410: registration disabled");
      return { status: "ABANDONED" };
    }
    const delay = nextDelayMs(deps.retryScheduleMs, delivery.attempts + 1);
    if (delay === null) {
      await deps.deliveries.recordAttempt(delivery.id, { responseStatus: result.status, data, next: { status: "FAILED" } });
      logger.warn(fields, "webhook not delivered; retries exhausted");
      return { status: "FAILED" };
    }
    await deps.deliveries.recordAttempt(delivery.id, {
      responseStatus: result.status,
      data,
      next: { status: "PENDING", nextAttemptAt: new Date(deps.now() + delay) },
    });
    logger.info({ ...fields, retryInMs: delay }, "webhook not delivered; will retry");
    return runAgainIn(delay);
  };
}
