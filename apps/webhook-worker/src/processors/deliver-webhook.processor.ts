import type { Kek } from "@relay/secrets";
import type { EventCallbackRepository, WebhookDeliveryRepository } from "@relay/db";
import { runAgainIn, type Processor, type RunAgain } from "@relay/queue";
import { currentPayload, deliveryBody, openPreviousWebhookSecret, openWebhookSecret, signDelivery, syndicateSignature, type SafeHttpClient, type SafeHttpResult } from "@relay/webhooks";
import { deliveryResultOf, type DeliveryResult } from "../delivery-metrics";
import { orderWaitMs } from "../order-wait";
import type { ReceiverBreaker } from "../receiver-breaker";
import { nextDelayMs } from "../retry-schedule";

export interface DeliverWebhookDeps {
  deliveries: WebhookDeliveryRepository;
  callbacks: Pick<EventCallbackRepository, "disableAsGone">;
  http: Pick<SafeHttpClient, "post">;
  keyring: Kek;
  retryScheduleMs: readonly number[];
  now: () => number;
  /** Skips attempts to a registration whose recent attempts all timed out (receiver-breaker.ts); none when absent. */
  breaker?: Pick<ReceiverBreaker, "admit" | "record">;
  /** Told the result of every attempt (metrics). */
  onAttempt?: (result: DeliveryResult) => void;
}

/**
 * One attempt to deliver one event to one registration: Standard Webhooks signature (the
 * `webhook-id` is the event id on every attempt, the timestamp new each time; two signatures
 * during a secret rotation's grace period), POST through the SSRF-safe client, one stats entry
 * per attempt. 2xx delivers; 410 disables the registration; anything else, or no answer, tries
 * again on the schedule until it runs out.
 */
/**
 * An attempt's outcome: the receiver's answer, no answer, or not sent, because it could not be
 * signed or because the registration's recent attempts all timed out.
 */
type Attempt = SafeHttpResult | { status: 0; durationMs: number; error: "unsigned" | "circuit-open"; message: string };

/** The stats entry's `data`: how long until the receiver answered (or the attempt gave up), and why it got no answer. */
const dataOf = (attempt: Attempt) => ({
  durationMs: attempt.durationMs,
  ...(attempt.error !== undefined ? { error: `${attempt.error}: ${attempt.message}` } : {}),
});

export function createDeliverWebhookProcessor(deps: DeliverWebhookDeps): Processor<"deliverWebhook"> {
  return async ({ deliveryId }, { logger }): Promise<RunAgain | { status: string }> => {
    const input = await deps.deliveries.findForDelivery(deliveryId);
    if (!input) return { status: "missing" };
    const { delivery, event, registration, heldBack, heldBackUntil } = input;
    if (delivery.status !== "PENDING") return { status: delivery.status };
    if (registration.disabledAt) {
      await deps.deliveries.abandon(delivery.id);
      return { status: "ABANDONED" };
    }
    if (heldBack) return runAgainIn(orderWaitMs(heldBackUntil, deps.now()));
    const dueIn = (delivery.nextAttemptAt?.getTime() ?? 0) - deps.now();
    if (dueIn > 0) return runAgainIn(dueIn);

    // Sign exactly the bytes that are sent: the payload in today's shape (stored-payload.ts), its
    // keys sorted (delivery-body.ts). Within a rotation's grace period also with the secret it
    // replaced: a receiver that has not switched yet still verifies (docs/webhooks.md, "Rotating
    // a secret").
    const body = deliveryBody(currentPayload(event.payload));
    const timestamp = new Date(deps.now());
    let headers: Record<string, string>;
    try {
      const secret = openWebhookSecret(deps.keyring, registration);
      const previousSecret = openPreviousWebhookSecret(deps.keyring, registration, timestamp);
      headers = {
        ...signDelivery({ secret, previousSecret, msgId: event.id, timestamp, body }),
        // Syndicate's own header too, so a receiver written for Syndicate verifies unchanged (docs/webhooks.md).
        ...syndicateSignature({ secret, previousSecret, timestamp, body }),
      };
    } catch (e) {
      // A secret that does not open (its key left WEBHOOK_SECRET_KEYS*, or the row was altered) is
      // the operator's to mend, and nothing is sent unsigned. The attempt counts as failed on the
      // schedule like any other, so the delivery retries (the key may come back) and then ends
      // FAILED, instead of its job failing for ever and holding the transaction's later events.
      logger.error({ err: e, eventId: event.id, eventCallbackId: registration.id }, "webhook not sent: the registration's secret does not open");
      deps.onAttempt?.("unsigned");
      return retryOrFail({ status: 0, durationMs: 0, error: "unsigned", message: "the relay could not open this registration's signing secret; an operator must restore its key" });
    }
    const admission = deps.breaker?.admit(registration.id);
    if (admission && !admission.send) {
      deps.onAttempt?.("circuit_open");
      return retryOrFail({ status: 0, durationMs: 0, error: "circuit-open", message: admission.message });
    }
    const result = await deps.http.post(registration.callbackUrl, body, headers);
    deps.breaker?.record(registration.id, result.error === "timeout");
    deps.onAttempt?.(deliveryResultOf(result));
    if (result.status >= 200 && result.status < 300) {
      await deps.deliveries.recordAttempt(delivery.id, { responseStatus: result.status, data: dataOf(result), next: { status: "DELIVERED" } });
      logger.info(fieldsOf(result), "webhook delivered");
      return { status: "DELIVERED" };
    }
    if (result.status === 410) {
      // The registration is disabled with every PENDING delivery to it, this one included, and the
      // attempt recorded, all at once: marking this one ABANDONED alone first would release a younger
      // delivery it holds back, which could still be sent.
      await deps.callbacks.disableAsGone(registration.id, "the receiver answered 410 Gone", delivery.id, {
        responseStatus: 410,
        data: dataOf(result),
        next: { status: "ABANDONED" },
      });
      logger.warn(fieldsOf(result), "receiver answered 410: registration disabled");
      return { status: "ABANDONED" };
    }
    return retryOrFail(result);

    /** A failed attempt: tried again on the schedule, FAILED once it has run out. */
    async function retryOrFail(failed: Attempt): Promise<RunAgain | { status: string }> {
      const delay = nextDelayMs(deps.retryScheduleMs, delivery.attempts + 1);
      if (delay === null) {
        await deps.deliveries.recordAttempt(delivery.id, { responseStatus: failed.status, data: dataOf(failed), next: { status: "FAILED" } });
        logger.warn(fieldsOf(failed), "webhook not delivered; retries exhausted");
        return { status: "FAILED" };
      }
      await deps.deliveries.recordAttempt(delivery.id, {
        responseStatus: failed.status,
        data: dataOf(failed),
        next: { status: "PENDING", nextAttemptAt: new Date(deps.now() + delay) },
      });
      logger.info({ ...fieldsOf(failed), retryInMs: delay }, "webhook not delivered; will retry");
      return runAgainIn(delay);
    }
    /** Fields for an attempt's log line (not a child logger: one per attempt costs more than the line; the job's logger names the delivery). */
    function fieldsOf(attempt: Attempt) {
      return { eventId: event.id, eventCallbackId: registration.id, responseStatus: attempt.status };
    }
  };
}
