import { jobIdOf, type JobName, type JobPayload } from "./catalog";
import type { Producer } from "./producer";

/**
 * Makes sure the catalog job for `payload` is alive (waiting, delayed, active), and says whether
 * it had to revive it: a job that is missing (Redis lost it, or a crash came between commit and
 * enqueue) or completed while its record is unfinished is added again; one that failed for good
 * is retried with its attempt counters reset, so it gets the catalog's full retries again, not one
 * more try before it fails for good again. A live job is left as it is, delay and all.
 */
export async function reviveIfLost<N extends JobName>(producer: Pick<Producer, "enqueue" | "queue">, name: N, payload: JobPayload<N>): Promise<boolean> {
  const job = await producer.queue(name).getJob(jobIdOf(name, payload));
  const state = job ? await job.getState() : "missing";
  if (state === "missing" || state === "unknown" || state === "completed") {
    if (job) await job.remove().catch(() => undefined);
    await producer.enqueue(name, payload);
    return true;
  }
  if (state === "failed") {
    await job!.retry("failed", { resetAttemptsMade: true, resetAttemptsStarted: true });
    return true;
  }
  return false;
}
