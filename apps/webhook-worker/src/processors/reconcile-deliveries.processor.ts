import { createSweep } from "@relay/core";
import type { WebhookDeliveryRecord, WebhookDeliveryRepository } from "@relay/db";
import { reviveIfLost, type Processor, type Producer } from "@relay/queue";

export interface ReconcileDeliveriesDeps {
  deliveries: Pick<WebhookDeliveryRepository, "findDue">;
  producer: Pick<Producer, "enqueue" | "queue">;
  /** A PENDING delivery overdue by this long has lost its job. */
  overdueAfterMs: number;
  /** Deliveries checked per run; a run continues where the one before stopped. */
  batch?: number;
  now: () => number;
}

/**
 * Every PENDING delivery must have a live job; revives the ones that lost it. Each run checks the
 * next batch of overdue deliveries (earliest first, then from the top again), so overdue ones whose
 * jobs are alive (a backlog in the queue) cannot keep a lost one behind them unchecked.
 */
export function createReconcileDeliveriesProcessor(deps: ReconcileDeliveriesDeps): Processor<"reconcileDeliveries"> {
  const nextOverdue = createSweep({
    page: (after: WebhookDeliveryRecord | undefined, limit) =>
      deps.deliveries.findDue({ dueBefore: new Date(deps.now() - deps.overdueAfterMs), limit, after }),
    keyOf: (delivery) => delivery,
    limit: deps.batch ?? 1000,
  });
  return async (_payload, { logger }) => {
    const overdue = await nextOverdue();
    let revived = 0;
    for (const delivery of overdue) {
      if (await reviveIfLost(deps.producer, "deliverWebhook", { v: 1, deliveryId: delivery.id })) revived++;
    }
    if (revived > 0) logger.warn({ revived, checked: overdue.length }, "revived deliveries without a live job");
    return { checked: overdue.length, revived };
  };
}
