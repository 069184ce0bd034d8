import { Router } from "express";
import { z } from "zod";
import { AppError } from "@relay/core";
import type { WebhookDeliveryRepository } from "@relay/db";
import { assertProjectAccess, principalOf } from "../middleware/auth";
import { linkLogIds } from "../middleware/request-log";
import { parseOr } from "../middleware/validate";
import { deliveryParams, type redeliveryResponse } from "./event-callbacks.schema";

export interface EventDeliveryRoutesDeps {
  deliveries: Pick<WebhookDeliveryRepository, "redeliver">;
  /** Runs the delivery's job now (it may be finished, delayed on the retry schedule, or gone). */
  wake: (deliveryId: string) => Promise<void>;
}

/**
 * Sends one event to one registration again (the console's "Redeliver"): a delivery that was
 * DELIVERED or FAILED starts over on the retry schedule, a PENDING one is tried now. The same event,
 * so the same `webhook-id`: a receiver that deduplicates takes it as a repeat.
 */
export function eventDeliveryRoutes(deps: EventDeliveryRoutesDeps): Router {
  const router = Router();

  router.post("/webhook/project/:projectId/eventCallback/:eventCallbackId/delivery/:deliveryId/redeliver", async (req, res) => {
    const { projectId, eventCallbackId, deliveryId } = parseOr(deliveryParams, req.params);
    linkLogIds(res, { eventCallbackId });
    assertProjectAccess(principalOf(res.locals), projectId);
    const done = await deps.deliveries.redeliver(projectId, eventCallbackId, deliveryId);
    if (done.outcome === "not-found") throw new AppError("NOT_FOUND", `No delivery ${deliveryId} of event callback ${eventCallbackId} in project ${projectId}`);
    if (done.outcome === "disabled") throw new AppError("CONFLICT", `Event callback ${eventCallbackId} is disabled: its events are not sent again; register a new one`);
    await deps.wake(deliveryId);
    res.json({ deliveryId, eventCallbackId, eventId: done.eventId, status: "PENDING", previousStatus: done.previousStatus } satisfies z.output<typeof redeliveryResponse>);
  });

  return router;
}
