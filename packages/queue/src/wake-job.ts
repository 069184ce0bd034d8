import { jobIdOf, type JobName, type JobPayload } from "./catalog";
import { reviveIfLost } from "./live-job";
import type { Producer } from "./producer";

/** How often a running job is looked at again while `activeGraceMs` lasts. */
const ACTIVE_LOOK_EVERY_MS = 20;

/**
 * Makes the catalog job for `payload` run now: revived if lost (live-job.ts), promoted if it waits
 * out a delay (a transaction's job between two looks at the chain). A waiting or running job is
 * left as it is: it reads the record when it runs. For requests that change what a job should do
 * (a cancel, a speed-up) and should not wait for its next scheduled look.
 *
 * `activeGraceMs`: a running job may be about to put itself back to wait out a delay decided
 * before the change (a block follower going to sleep): it is looked at again for this long, and
 * promoted once delayed.
 */
export async function wakeJob<N extends JobName>(
  producer: Pick<Producer, "enqueue" | "queue">,
  name: N,
  payload: JobPayload<N>,
  options: { activeGraceMs?: number } = {},
): Promise<void> {
  if (await reviveIfLost(producer, name, payload)) return;
  const until = Date.now() + (options.activeGraceMs ?? 0);
  for (;;) {
    const job = await producer.queue(name).getJob(jobIdOf(name, payload));
    const state = job ? await job.getState() : "missing";
    // Promoting fails when the job left the delayed set meanwhile (it runs now): nothing to do then.
    if (state === "delayed") return void (await job!.promote().catch(() => undefined));
    if (state !== "active" || Date.now() >= until) return;
    await new Promise((resolve) => setTimeout(resolve, ACTIVE_LOOK_EVERY_MS));
  }
}
