import type { Sql } from "../client";
import { CLAIM_UNDISPATCHED } from "./webhook.sql";
import { toDelivery, type WebhookDeliveryRecord } from "./webhook-records";

/**
 * The outbox's way out (docs/webhooks.md, "Dispatch"): every webhook-worker replica polls
 * claimUndispatched; SKIP LOCKED gives each replica different events, and the UNIQUE (event,
 * registration) of webhook_delivery makes a second delivery of one event to one registration
 * impossible whatever happens.
 */
export function createEventDispatchRepository(sql: Sql) {
  return {
    /**
     * In one database transaction: locks up to `limit` of the oldest undispatched events that no
     * other caller holds, creates one PENDING delivery (due now) per active registration of each
     * event's project and event type, marks those events dispatched, and returns the deliveries
     * created, oldest event first. An event with no registration is dispatched with no delivery.
     * An event of a transaction whose older event is still undispatched elsewhere waits for a
     * later call, so a subject's deliveries are created in the order of its events.
     */
    claimUndispatched: async (limit: number): Promise<WebhookDeliveryRecord[]> => {
      const result = await sql.query<WebhookDeliveryRecord>({ name: "eventDispatch.claim", text: CLAIM_UNDISPATCHED }, [limit]);
      return result.rows.map(toDelivery);
    },
  };
}

export type EventDispatchRepository = ReturnType<typeof createEventDispatchRepository>;
