import type { Sql } from "../client";
import { CLAIM_UNDISPATCHED } from "./event-dispatch.sql";
import { toDelivery, type WebhookDeliveryRecord } from "./webhook-records";

/**
 * The outbox's way out (docs/webhooks.md, "Dispatch"): every webhook-worker replica polls
 * claimUndispatched; SKIP LOCKED gives each replica different events, and the UNIQUE (event,
 * registration) of webhook_delivery makes a second delivery of one event to one registration
 * impossible whatever happens.
 */
export function createEventDispatchRepository(sql: Sql) {
  const claimBatch = createClaimBatch(sql);
  return {
    /**
     * In one database transaction: locks up to `limit` of the oldest undispatched events that no
     * other caller holds, creates one PENDING delivery (due now) per active registration of each
     * event's project and event type, marks those events dispatched, and returns the deliveries
     * created, oldest event first. An event with no registration is dispatched with no delivery.
     * An event of a transaction whose older event is still undispatched elsewhere waits for a
     * later call, so a subject's deliveries are created in the order of its events.
     */
    claimUndispatched: async (limit: number): Promise<WebhookDeliveryRecord[]> => (await claimBatch(limit)).deliveries,
    claimBatch,
  };
}

export interface DispatchBatch {
  deliveries: WebhookDeliveryRecord[];
  /**
   * Whether more events are likely waiting: the batch locked `limit` events and dispatched some.
   * Not the number of deliveries, which is no measure of it (events without a registration have
   * none, events with several registrations several).
   */
  full: boolean;
}

type ClaimRow = { candidateEvents: number; claimedEvents: number } & ({ id: null } | WebhookDeliveryRecord);

function createClaimBatch(sql: Sql) {
  /** claimUndispatched, with whether the batch was full. */
  return async (limit: number): Promise<DispatchBatch> => {
    const { rows } = await sql.query<ClaimRow>({ name: "eventDispatch.claim", text: CLAIM_UNDISPATCHED }, [limit]);
    const counts = rows[0] ?? { candidateEvents: 0, claimedEvents: 0 };
    return {
      deliveries: rows.filter((r): r is ClaimRow & WebhookDeliveryRecord => r.id !== null).map(toDelivery),
      full: counts.candidateEvents >= limit && counts.claimedEvents > 0,
    };
  };
}

export type EventDispatchRepository = ReturnType<typeof createEventDispatchRepository>;
