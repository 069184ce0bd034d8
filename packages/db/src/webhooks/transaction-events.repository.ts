import type { EventType } from "@relay/lifecycle";
import type { Sql } from "../client";

/** One delivery of an event, as the transaction's events read shows it. */
export interface EventDeliveryView {
  deliveryId: string;
  eventCallbackId: string;
  callbackUrl: string;
  status: "PENDING" | "DELIVERED" | "FAILED" | "ABANDONED";
  attempts: number;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  /** The receiver's answer to the latest attempt (0: none); null before the first. */
  lastResponseStatus: number | null;
}

/** An event the relay recorded about a transaction, with its deliveries to the project's registrations. */
export interface TransactionEventView {
  eventId: string;
  eventType: EventType;
  payload: unknown;
  createdAt: Date;
  /** When it was handed to the registrations of its moment; null while it waits in the outbox. */
  dispatchedAt: Date | null;
  deliveries: EventDeliveryView[];
}

/** The most events one read answers: a transaction has a status change per move, a handful. */
export const MAX_TRANSACTION_EVENTS = 200;

/**
 * $1 project, $2 transaction id (the events' subject), $3 limit: the events in the order they
 * were recorded (seq), each with its deliveries and each delivery's latest answer. Served by the
 * (subject, seq) index of event, (event_id, …) of webhook_delivery and (delivery_id) of the stats.
 */
const TRANSACTION_EVENTS = `
  SELECT e.id AS "eventId", e.event_type::text AS "eventType", e.payload, e.created_at AS "createdAt", e.dispatched_at AS "dispatchedAt",
         COALESCE(
           (SELECT json_agg(json_build_object(
                     'deliveryId', d.id, 'eventCallbackId', d.event_callback_id, 'callbackUrl', c.callback_url,
                     'status', d.status, 'attempts', d.attempts, 'nextAttemptAt', d.next_attempt_at, 'deliveredAt', d.delivered_at,
                     'lastResponseStatus', (SELECT s.response_status FROM event_callback_stat s WHERE s.delivery_id = d.id ORDER BY s.id DESC LIMIT 1))
                   ORDER BY d.created_at, d.id)
              FROM webhook_delivery d JOIN event_callback c ON c.id = d.event_callback_id
             WHERE d.event_id = e.id),
           '[]'::json) AS deliveries
    FROM event e
   WHERE e.subject = $2 AND e.project_id = $1
   ORDER BY e.seq
   LIMIT $3`;

type RawDelivery = Omit<EventDeliveryView, "nextAttemptAt" | "deliveredAt"> & { nextAttemptAt: string | null; deliveredAt: string | null };

/** The events of one transaction of a project (GET …/transactions/{id}/events). */
export function createTransactionEvents(sql: Sql) {
  return async (projectId: string, transactionId: string): Promise<TransactionEventView[]> => {
    const { rows } = await sql.query<Omit<TransactionEventView, "deliveries"> & { deliveries: RawDelivery[] }>(
      { name: "transactionEvents", text: TRANSACTION_EVENTS },
      [projectId, transactionId, MAX_TRANSACTION_EVENTS],
    );
    return rows.map((row) => ({
      ...row,
      deliveries: row.deliveries.map((d) => ({
        ...d,
        nextAttemptAt: d.nextAttemptAt === null ? null : new Date(d.nextAttemptAt),
        deliveredAt: d.deliveredAt === null ? null : new Date(d.deliveredAt),
      })),
    }));
  };
}

export type TransactionEvents = ReturnType<typeof createTransactionEvents>;
