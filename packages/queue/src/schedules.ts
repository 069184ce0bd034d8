import type { Redis } from "./connection";
import { toError, type Logger } from "@relay/core";

export interface KeepScheduledDeps {
  /** The connection the schedules are written on (its `ready` events mark reconnects). */
  redis: Redis;
  /** Upserts every schedule of the app; idempotent. */
  schedule: () => Promise<void>;
  logger: Logger;
  /** Upsert again this often even without a reconnect (a flush, a failover). Default one minute. */
  everyMs?: number;
}

/**
 * Keeps an app's repeating jobs (the reconcilers, the sweeps) in Redis. They live only there: a
 * Redis that comes back empty (no persistence, a failover to an empty replica) loses them, and
 * without the reconcilers the work lost with it would never be revived. So they are upserted at
 * start, again whenever the connection is ready after a reconnect, and every `everyMs`.
 */
export async function keepScheduled(deps: KeepScheduledDeps): Promise<{ stop(): void }> {
  const upsert = (why: string) =>
    deps.schedule().then(
      () => deps.logger.debug({ why }, "schedules upserted"),
      (e: unknown) => deps.logger.warn({ err: toError(e), why }, "could not upsert schedules; trying again later"),
    );
  await deps.schedule();
  const onReady = () => void upsert("reconnected");
  deps.redis.on("ready", onReady);
  const timer = setInterval(() => void upsert("periodic"), deps.everyMs ?? 60_000);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      deps.redis.off("ready", onReady);
    },
  };
}
