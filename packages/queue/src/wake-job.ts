import { jobIdOf, type JobName, type JobPayload } from "./catalog";
import { reviveIfLost } from "./live-job";
import type { Producer } from "./producer";

/**
 * Makes the catalog job for `payload` run now: revived if lost (live-job.ts), promoted if it waits
 * out a delay (a transaction's job between two looks at the chain). A waiting or running job is
 * left as it is: it reads the record when it runs. For requests that change what a job should do
 * (a cancel, a speed-up) and should not wait for its next scheduled look.
 */
export async function wakeJob<N extends JobName>(producer: Pick<Producer, "enqueue" | "queue">, name: N, payload: JobPayload<N>): Promise<void> {
  if (await reviveIfLost(producer, name, payload)) return;
  const job = await producer.queue(name).getJob(jobIdOf(name, payload));
  // Promoting fails when the job left the delayed set meanwhile (it runs now): nothing to do then.
  if (job && (await job.getState()) === "delayed") await job.promote().catch(() => undefined);
}
