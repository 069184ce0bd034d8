import { toError, type Logger } from "@relay/core";
import type { EventDispatchRepository } from "@relay/db";
import type { Producer } from "@relay/queue";
import { nextRest } from "./dispatch-rest";

/**
 * Turns outbox events into deliveries, in a loop: claim a batch (rows locked with SKIP LOCKED, so
 * replicas share the work without doing it twice), enqueue one job per delivery (the batch in one
 * round trip). A batch that was full (of events, whatever number of deliveries they made) is
 * followed at once; otherwise the loop rests `idleMs`, longer while claims find nothing, up to
 * `quietMs` (dispatch-rest.ts).
 * Enqueue failures are left to the delivery reconciler: the deliveries are already in Postgres.
 */
export function startDispatcher(deps: { dispatch: EventDispatchRepository; producer: Pick<Producer, "enqueueMany">; logger: Logger; idleMs?: number; quietMs?: number; batch?: number }) {
  const batch = deps.batch ?? 100;
  const idleMs = deps.idleMs ?? 250;
  const rests = { idleMs, quietMs: deps.quietMs ?? Math.max(idleMs, 1_000) };
  let rest = rests.idleMs;
  let running = true;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();

  const tick = async () => {
    let claimed = { full: false, any: false };
    try {
      const { deliveries, full } = await deps.dispatch.claimBatch(batch);
      claimed = { full, any: deliveries.length > 0 };
      await deps.producer.enqueueMany(
        "deliverWebhook",
        deliveries.map((d) => ({ v: 1 as const, deliveryId: d.id })),
      );
    } catch (e) {
      deps.logger.warn({ err: toError(e) }, "dispatch failed; retrying");
    }
    rest = nextRest(rest, claimed, rests);
    if (running) timer = setTimeout(() => (current = tick()), rest);
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
