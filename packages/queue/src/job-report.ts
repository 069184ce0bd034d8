import type { Job } from "bullmq";

/**
 * How one run of a job ended:
 * - `completed`: done for good;
 * - `run_again`: not finished, put back as delayed by the processor (RunAgain; not an attempt);
 * - `retrying`: failed, BullMQ will try again;
 * - `failed`: failed for good (non-retryable, or its attempts are used up).
 */
export type JobOutcome = "completed" | "run_again" | "retrying" | "failed";

/** What a worker reports about every run of a job (metrics take it; ids are not part of it). */
export interface JobObservation {
  queue: string;
  outcome: JobOutcome;
  /** How long this run took in the processor. */
  durationMs: number;
  /** From the moment the job was first due (enqueued, or its first delay over) until now; only when it finished (completed or failed). */
  latencyMs?: number;
}

export interface JobObserver {
  observe(observation: JobObservation): void;
}

/** Payload fields that link a job's log line to requests and records (ids only, never secrets). */
const LINKED_IDS = ["reqId", "projectId", "signatureId", "transactionId", "deliveryId"] as const;

/**
 * The payload's ids. A batch job (`signatures: [{ signatureId, reqId }]`) gives them as lists,
 * `signatureIds` and `reqIds`, so the line of the job that signed a request is found by either.
 */
export function linkedIdsOf(payload: object): Record<string, string | string[]> {
  const ids: Record<string, string | string[]> = {};
  const fields = payload as Record<string, unknown>;
  for (const key of LINKED_IDS) {
    const value = fields[key];
    if (typeof value === "string") ids[key] = value;
  }
  if (Array.isArray(fields.signatures)) {
    const items = fields.signatures as { signatureId?: unknown; reqId?: unknown }[];
    ids.signatureIds = items.flatMap((i) => (typeof i.signatureId === "string" ? [i.signatureId] : []));
    ids.reqIds = items.flatMap((i) => (typeof i.reqId === "string" ? [i.reqId] : []));
  }
  return ids;
}

/**
 * The moment the job was first due: its creation time plus the delay it was created with. A job
 * that put itself back (RunAgain) keeps its creation time, so a transaction's latency runs from
 * acceptance to its final status.
 */
export const firstDueAt = (job: Pick<Job, "timestamp" | "opts">): number => job.timestamp + (job.opts.delay ?? 0);

/** Whether a failed run is the last one: the error cannot be retried or the attempts are used up. */
export const isLastAttempt = (job: Pick<Job, "attemptsMade" | "opts">, retryable: boolean): boolean =>
  !retryable || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
