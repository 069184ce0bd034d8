import { Webhook } from "standardwebhooks";
import { EVENT_TYPES, type RelayEvent } from "./types";

/** Headers as Node's IncomingMessage, fetch's Headers or a plain object give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** A delivery that is not the relay's: bad or missing signature, stale timestamp, or not an event. */
export class WebhookVerificationError extends Error {
  override name = "WebhookVerificationError";
}

const header = (headers: WebhookHeaders, name: string): string | undefined => {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const value = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * Verifies a webhook delivery (Standard Webhooks: `webhook-signature` over
 * `{webhook-id}.{webhook-timestamp}.{body}` with the `whsec_…` secret of the registration,
 * timestamp within 5 minutes) and returns the event, typed. `body` must be the raw text as
 * received, not re-serialised JSON. Throws WebhookVerificationError otherwise.
 */
export function verifyWebhook(secret: string, body: string | Buffer, headers: WebhookHeaders): RelayEvent {
  const names = ["webhook-id", "webhook-timestamp", "webhook-signature"] as const;
  const given: Record<string, string> = {};
  for (const name of names) {
    const value = header(headers, name);
    if (!value) throw new WebhookVerificationError(`${name} header is missing`);
    given[name] = value;
  }
  let payload: unknown;
  try {
    payload = new Webhook(secret).verify(typeof body === "string" ? body : body.toString("utf8"), given);
  } catch (error) {
    throw new WebhookVerificationError(`webhook not verified: ${(error as Error).message}`);
  }
  const event = payload as RelayEvent;
  if (!event || typeof event !== "object" || !(EVENT_TYPES as readonly string[]).includes(event.eventType) || typeof event.data !== "object") {
    throw new WebhookVerificationError("webhook verified but is not a relay event");
  }
  return event;
}
