import { z } from "zod";
import { EVENT_TYPES } from "@relay/lifecycle";
import { uuid } from "../http-schemas";

export const eventCallbackRequest = z
  .strictObject({
    callbackURL: z.string({ error: "callbackURL must be a string" }).meta({ description: "URL the events are POSTed to (https in production)" }),
    eventType: z.enum(EVENT_TYPES, { error: `eventType must be one of ${EVENT_TYPES.join(", ")}` }),
  })
  .meta({ id: "EventCallbackRequest" });

export const statsEntry = z
  .object({
    createdAt: z.iso.datetime(),
    data: z.unknown(),
    eventCallbackId: z.string(),
    responseStatus: z.number().int().meta({ description: "HTTP status of the delivery attempt; 0 = no HTTP response" }),
  })
  .meta({ id: "EventCallbackStat" });

export const eventCallbackResponse = z
  .object({
    callbackURL: z.string(),
    eventType: z.enum(EVENT_TYPES),
    id: z.uuid(),
    projectId: z.uuid(),
    secret: z.string().meta({ description: "Standard Webhooks signing secret (whsec_…); shown when created or rotated" }),
    // The contract has stats "Required: no" (an array or null); this server always sends an array.
    stats: z.array(statsEntry).nullable().optional(),
  })
  .meta({ id: "EventCallback" });

export const eventCallbackListItem = z
  .object({
    callbackURL: z.string(),
    eventType: z.enum(EVENT_TYPES),
    id: z.uuid(),
    projectId: z.uuid(),
    disabled: z.boolean(),
    disabledReason: z.string().nullable(),
    stats: z.array(statsEntry),
  })
  .meta({ id: "EventCallbackListItem" });

export const eventCallbackRotated = eventCallbackListItem
  .omit({ stats: true })
  .extend({
    secret: z.string().meta({ description: "The new Standard Webhooks signing secret (whsec_…); shown only here" }),
    previousSecretExpiresAt: z.iso
      .datetime()
      .nullable()
      .meta({
        description:
          "Until when deliveries are also signed with the secret this rotation replaced (a second `v1,` signature in `webhook-signature`); null when the old secret stopped at once",
      }),
  })
  .meta({ id: "EventCallbackRotated" });

export const eventCallbackDeleted = z.object({ id: z.uuid(), deleted: z.literal(true) }).meta({ id: "EventCallbackDeleted" });

export const eventCallbackParams = z.object({
  projectId: uuid("projectId in the path must be a UUID"),
  eventCallbackId: uuid("eventCallbackId in the path must be a UUID"),
});

export type EventCallbackRequest = z.output<typeof eventCallbackRequest>;

export const deliveryParams = eventCallbackParams.extend({
  deliveryId: uuid("deliveryId in the path must be a UUID").meta({ description: "The delivery: `data.deliveryId` of a stats entry of the registration" }),
});

export const redeliveryResponse = z
  .object({
    deliveryId: z.uuid(),
    eventCallbackId: z.uuid(),
    eventId: z.uuid().meta({ description: "The event sent again: the same `webhook-id`, so a receiver that deduplicates sees a repeat" }),
    status: z.literal("PENDING").meta({ description: "The delivery is due now; its attempts appear in the registration's stats" }),
    previousStatus: z.enum(["PENDING", "DELIVERED", "FAILED"]),
  })
  .meta({ id: "Redelivery" });
