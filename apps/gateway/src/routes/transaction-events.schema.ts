import { z } from "zod";
import { EVENT_TYPES } from "@relay/lifecycle";

/** GET …/transactions/{transactionId}/events: what the relay told the project's receivers about a transaction. */
export const transactionEventsResponse = z
  .object({
    events: z
      .array(
        z.object({
          eventId: z.uuid().meta({ description: "The `webhook-id` its deliveries carry" }),
          eventType: z.enum(EVENT_TYPES),
          payload: z.unknown().meta({ description: "The body the receivers are sent (docs/webhooks.md, \"Payloads\")" }),
          createdAt: z.iso.datetime(),
          dispatchedAt: z.iso.datetime().nullable().meta({ description: "When it was handed to the registrations of that moment; null while it waits in the outbox" }),
          deliveries: z.array(
            z.object({
              deliveryId: z.uuid().meta({ description: "For POST …/delivery/{deliveryId}/redeliver" }),
              eventCallbackId: z.uuid(),
              callbackURL: z.string(),
              status: z.enum(["PENDING", "DELIVERED", "FAILED", "ABANDONED"]),
              attempts: z.number().int(),
              nextAttemptAt: z.iso.datetime().nullable(),
              deliveredAt: z.iso.datetime().nullable(),
              lastResponseStatus: z.number().int().nullable().meta({ description: "The receiver's answer to the latest attempt (0: no HTTP answer); null before the first" }),
            }),
          ),
        }),
      )
      .meta({ description: "In the order they were recorded; at most 200" }),
  })
  .meta({ id: "TransactionEvents" });
