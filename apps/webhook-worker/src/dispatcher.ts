import { toError, type Logger } from "@relay/core";
import type { EventDispatchRepository } from "@relay/db";
import type { Producer } from "@relay/queue";

/**
 * Turns outbox events into deliveries, in a loop: claim a batch (rows locked with SKIP LOCKED, so
 * replicas share the work without doing it twice), enqueue one job per delivery (the batch in one
 * round trip). A batch that was full is followed at once; otherwise the loop rests `idleMs`.
 * Enqueue failures are left to the delivery reconciler: the deliveries are already in Postgres.
 */
export function startDispatcher(deps: { dispatch: EventDispatchRepository; producer: Pick<Producer, "enqueueMany">; logger: Logger; idleMs?: number; batch?: number }) {
  const batch = deps.batch ?? 100;
  let running = true;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();

  const tick = async () => {
    let claimed = 0;
    try {
      const deliveries = await deps.dispatch.claimUndispatched(batch);
      claimed = deliveries.length;
      await deps.producer.enqueueMany(
        "deliverWebhook",
        deliveries.map((d) => ({ v: 1 as const, deliveryId: d.id })),
      );
    } catch (e) {
      deps.logger.warn({ err: toError(e) }, "dispatch failed; retrying");
    }
    if (running) timer = setTimeout(() => (current = tick()), claimed === batch ? 0 : (deps.idleMs ?? 250));
  };
  current = tick();

  return {
    stop: async () => {
      running = false;
      clearTimeout(timer);
      await current;
    },
  };
}
