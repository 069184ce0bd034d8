import { Router } from "express";
import type { z } from "zod";
import { AppError } from "@relay/core";
import type { TransactionEvents } from "@relay/db";
import { assertProjectAccess, principalOf } from "../middleware/auth";
import { linkLogIds } from "../middleware/request-log";
import { parseOr } from "../middleware/validate";
import type { transactionEventsResponse } from "./transaction-events.schema";
import { transactionParams } from "./transactions.schema";

export interface TransactionEventRoutesDeps {
  events: TransactionEvents;
  transactionExists: (projectId: string, transactionId: string) => Promise<boolean>;
}

const iso = (d: Date | null): string | null => d && d.toISOString();

/** GET a transaction's events and their deliveries to the project's registrations (the console's transaction page). */
export function transactionEventRoutes(deps: TransactionEventRoutesDeps): Router {
  const router = Router();

  router.get("/transact/project/:projectId/transactions/:transactionId/events", async (req, res) => {
    const { projectId, transactionId } = parseOr(transactionParams, req.params);
    linkLogIds(res, { transactionId });
    assertProjectAccess(principalOf(res.locals), projectId);
    const events = await deps.events(projectId, transactionId);
    // No events: say whether there is no such transaction (a transaction always has its PENDING event).
    if (events.length === 0 && !(await deps.transactionExists(projectId, transactionId))) {
      throw new AppError("NOT_FOUND", `No transaction ${transactionId} in project ${projectId}`);
    }
    res.json({
      events: events.map((e) => ({
        eventId: e.eventId,
        eventType: e.eventType,
        payload: e.payload,
        createdAt: e.createdAt.toISOString(),
        dispatchedAt: iso(e.dispatchedAt),
        deliveries: e.deliveries.map((d) => ({
          deliveryId: d.deliveryId,
          eventCallbackId: d.eventCallbackId,
          callbackURL: d.callbackUrl,
          status: d.status,
          attempts: d.attempts,
          nextAttemptAt: iso(d.nextAttemptAt),
          deliveredAt: iso(d.deliveredAt),
          lastResponseStatus: d.lastResponseStatus,
        })),
      })),
    } satisfies z.input<typeof transactionEventsResponse>);
  });

  return router;
}
