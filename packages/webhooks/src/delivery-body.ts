import { configure } from "safe-stable-stringify";

// Keys sorted at every depth; a value JSON cannot hold is an error, never silently dropped.
const stableJson = configure({ deterministic: true, bigint: false, strict: true });

/**
 * The bytes a webhook delivery sends for an event's payload: JSON with the keys of every object in
 * sorted order. The same payload always gives the same bytes (Postgres' jsonb hands keys back in
 * its own order), and a receiver written for Syndicate verifies whether it attaches `triggeredAt`
 * to the body as parsed or sorts the keys first: every top-level key sorts before `triggeredAt`
 * (docs/syndicate.md, "Webhooks").
 */
export function deliveryBody(payload: unknown): string {
  const text = stableJson(payload);
  if (typeof text !== "string") throw new TypeError("a webhook payload must be a JSON value");
  return text;
}
