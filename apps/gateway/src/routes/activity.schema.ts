import { z } from "zod";
import { uuid } from "../http-schemas";

export const activityParams = z.object({
  projectId: uuid("projectId in the path must be a UUID").meta({ description: "Project id (UUID)" }),
});

export const activityQuery = z.strictObject({
  window: z
    .enum(["hour", "day"], { error: "window must be hour or day" })
    .optional()
    .meta({ description: "The last hour in 60 one-minute buckets (default), or the last day in 96 buckets of 15 minutes" }),
});

const bucket = z.object({
  start: z.iso.datetime(),
  accepted: z.number().int().meta({ description: "Transactions accepted (sendTransaction answered) in the bucket" }),
  confirmed: z.number().int().meta({ description: "Transactions that became CONFIRMED in the bucket (accepted at most a day before the window)" }),
  confirmSecondsP50: z.number().nullable().meta({ description: "Median seconds from acceptance to CONFIRMED of those; null without any" }),
  confirmSecondsP99: z.number().nullable(),
  deliveryAttempts: z.number().int().meta({ description: "Attempts to deliver the project's events to its receivers" }),
  deliveredAttempts: z.number().int().meta({ description: "Of those, the ones answered with a 2xx" }),
  waitingTransactions: z
    .number()
    .int()
    .nullable()
    .meta({
      description:
        "The project's unfinished transactions (PENDING, SUBMITTED, PAUSED) as sampled once a minute: the most at a sampled minute of the bucket; null when no minute of it was sampled (no tx-worker running)",
    }),
  waitingDeliveries: z.number().int().nullable().meta({ description: "The project's deliveries still to make or retry, sampled the same way" }),
});

export const activityResponse = z
  .object({
    window: z.enum(["hour", "day"]),
    bucketSeconds: z.number().int(),
    buckets: z.array(bucket).meta({ description: "Oldest first; the last is the bucket now under way" }),
    waiting: z
      .object({
        pending: z.number().int(),
        submitted: z.number().int(),
        paused: z.number().int(),
        deliveriesPending: z.number().int().meta({ description: "Deliveries to be made or retried" }),
        eventsUndispatched: z.number().int().meta({ description: "Events not yet handed to the registrations" }),
      })
      .meta({ description: "The project's queue now: its unfinished transactions by status and its deliveries still to make" }),
  })
  .meta({ id: "ProjectActivity" });
