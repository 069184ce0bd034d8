import { randomBytes } from "node:crypto";
import { AppError, createBatcher, toError } from "@relay/core";
import { jobIdOf, MAX_SIGN_BATCH, type Job, type Producer, type ResultWaiter } from "@relay/queue";

export interface SignBatchesDeps {
  producer: Pick<Producer, "enqueue" | "discard">;
  results: Pick<ResultWaiter, "expect">;
  /** How long a batch may take from its enqueue to its result. */
  timeoutMs: number;
  maxBatchSize?: number;
}

/** What the signing worker made of one request (its PersonalSignResult). */
export type SignOutcome =
  // walletId and messageSha256: what was signed (absent from the answers of workers older than 2026-11-25).
  // kind: TYPED_DATA when typed data was signed (absent for a personal message, and from workers before typed data).
  | { outcome: "signed"; signature: string; walletId?: string; messageSha256?: string; kind?: "TYPED_DATA" }
  | { outcome: "gone" }
  | { outcome: "failed"; reason: string };

/** The worker's answer to a v3 job: each request's outcome, in the order of the job's `signatures`. */
interface BatchResult {
  v: 3;
  results: SignOutcome[];
}

/**
 * `work`, or a TIMEOUT rejection after `ms`: an enqueue that hangs (a Redis connection that never
 * came up) must not hold the batch slot, and every request behind it, forever.
 */
function withinTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AppError("TIMEOUT", `${what} within ${ms} ms`, { retryable: true })), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

interface Ticket {
  /** The batch's result; rejects (TIMEOUT, the job failed) only after the job was discarded. */
  done: Promise<BatchResult>;
  /** The request's place in the batch, and so in its results. */
  index: number;
}

interface SignRequest {
  projectId: string;
  signatureId: string;
  reqId?: string | undefined;
  /** How long after its record's insert the worker may still sign it; no limit without one. */
  signWithinMs?: number | undefined;
  /** What the record holds; PERSONAL when absent (and then not sent, as before typed data). */
  kind?: "PERSONAL" | "TYPED_DATA" | undefined;
  deadline: number;
}

/**
 * Hands stored personal-sign requests to the signing worker in batches: one job, one completion
 * event and one Redis round trip each way for all the requests that arrived while the previous
 * batch was being enqueued. Under light load a request goes out at once, alone; under load the
 * per-job cost of BullMQ (its scripts, the events every gateway reads, the worker's fetch and
 * finish) is shared by the batch (docs/architecture.md).
 *
 * When a batch fails or times out, its job is removed unless a worker holds it already, before
 * any of its requests hears of it: a request that then removes its record knows no worker will
 * start on it (one that already has, finds the record gone and does not sign).
 */
export function createSignBatches(deps: SignBatchesDeps) {
  const enqueueBatch = createBatcher<SignRequest, Ticket>(
    async (requests) => {
      const payload = {
        v: 3 as const,
        batch: randomBytes(8).toString("hex"),
        signatures: requests.map(({ projectId, signatureId, reqId, signWithinMs, kind }) => ({
          projectId,
          signatureId,
          ...(reqId === undefined ? {} : { reqId }),
          ...(signWithinMs === undefined ? {} : { signWithinMs }),
          ...(kind === undefined || kind === "PERSONAL" ? {} : { kind }),
        })),
      };
      // The batch ends at its earliest request's deadline: a request's time-out counts from the
      // request, also when it waited behind a batch whose enqueue hung.
      const timeoutMs = Math.max(1, Math.min(...requests.map((r) => r.deadline)) - Date.now());
      // Waiting starts before the job exists, so a job that finishes at once cannot slip past.
      const finished = deps.results.expect(jobIdOf("personalSign", payload), timeoutMs) as Promise<BatchResult>;
      finished.catch(() => undefined); // observed below, or dropped with a batch that was never enqueued
      let job: Job;
      try {
        job = await withinTimeout(deps.producer.enqueue("personalSign", payload), timeoutMs, "The signing job could not be enqueued");
      } catch (e) {
        const error = toError(e);
        return requests.map(() => error);
      }
      const done = finished.catch(async (e: unknown) => {
        await deps.producer.discard(job);
        throw e;
      });
      done.catch(() => undefined); // observed by every request of the batch
      return requests.map((_, index) => ({ done, index }));
    },
    { maxBatchSize: Math.min(deps.maxBatchSize ?? MAX_SIGN_BATCH, MAX_SIGN_BATCH), maxInFlight: 1 },
  );

  return {
    /**
     * Signs a project's stored request in the next batch and answers the worker's outcome for it.
     * Rejects when the batch could not be enqueued, failed, or timed out (AppError TIMEOUT), within
     * the time-out counted from this call.
     */
    sign: async (projectId: string, signatureId: string, reqId?: string, signWithinMs?: number, kind?: "PERSONAL" | "TYPED_DATA"): Promise<SignOutcome> => {
      const deadline = Date.now() + deps.timeoutMs;
      // Behind a batch whose enqueue hangs, a request used to wait that time-out and then its own
      // again. Given up on here, its record is removed by the caller, and a worker that later
      // starts on its batch finds it gone.
      const ticket = await withinTimeout(enqueueBatch({ projectId, signatureId, reqId, signWithinMs, kind, deadline }), deps.timeoutMs, "The signing job could not be enqueued");
      const { results } = await ticket.done;
      const outcome = results[ticket.index];
      if (!outcome) throw new AppError("INTERNAL", `signing worker's answer for batch has no result for ${signatureId}`);
      return outcome;
    },
  };
}

export type SignBatches = ReturnType<typeof createSignBatches>;
