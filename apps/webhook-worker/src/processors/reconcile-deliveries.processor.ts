import type { WebhookDeliveryRepository } from "@relay/db";
import { jobIdOf, type Processor, type Producer } from "@relay/queue";

export interface ReconcileDeliveriesDeps {
  deliveries: Pick<WebhookDeliveryRepository, "findDue">;
  producer: Pick<Producer, "enqueue" | "queue">;
  /** A PENDING delivery overdue by this long has lost its job. */
  overdueAfterMs: number;
  now: () => number;
}

/** Every PENDING delivery must have a live job; revives the ones that lost it. */
export function createReconcileDeliveriesProcessor(deps: ReconcileDeliveriesDeps): Processor<"reconcileDeliveries"> {
  return async (_payload, { logger }) => {
    const overdue = await deps.deliveries.findDue({ dueBefore: new Date(deps.now() - deps.overdueAfterMs), limit: 1000 });
    let revived = 0;
    for (const delivery of overdue) {
      const payload = { v: 1 as const, deliveryId: delivery.id };
      const job = await deps.producer.queue("deliverWebhook").getJob(jobIdOf("deliverWebhook", payload));
      const state = job ? await job.getState() : "missing";
      if (state === "missing" || state === "unknown" || state === "completed") {
        if (job) await job.remove().catch(() => undefined);
        await deps.producer.enqueue("deliverWebhook", payload);
        revived++;
      } else if (state === "failed") {
        await job!.retry("failed");
        revived++;
      }
    }
    if (revived > 0) logger.warn({ revived, checked: overdue.length }, "revived deliveries without a live job");
    return { checked: overdue.length, revived };
  };
}
