import { DelayedError, UnrecoverableError, WaitingError, Worker, type Job } from "bullmq";
import type { Redis } from "ioredis";
import { isAppError, toError, type Logger } from "@relay/core";
import { jobCatalog, type JobName, type JobPayload } from "./catalog";
import { HANDED_BACK, runningJobs, unlessHandedBack } from "./hand-back";

export interface WorkerSettings {
  connection: Redis;
  prefix: string;
  concurrency: number;
  logger: Logger;
  /**
   * BullMQ's lockDuration, and its stalled-job check interval with it: a job of a worker that died
   * (its lock no longer renewed) goes back to the queue after one to three times this. Default 30 s.
   */
  lockDurationMs?: number;
}

export type Processor<N extends JobName> = (payload: JobPayload<N>, context: { job: Job; logger: Logger }) => Promise<unknown>;

/** A processor's answer meaning "not finished: run this job again in `delayMs`" (not a retry). */
export class RunAgain {
  constructor(readonly delayMs: number) {}
}
export const runAgainIn = (delayMs: number) => new RunAgain(delayMs);

/**
 * A BullMQ worker for one catalog queue. The payload is parsed with the catalog schema (a payload
 * that does not parse can never succeed, so it fails without retry), each job gets a child logger,
 * and an AppError with `retryable: false` becomes BullMQ's UnrecoverableError. A job aborted for a
 * hand-back (the process is stopping, see workerGroup) goes back to the wait list at once.
 */
export function createTypedWorker<N extends JobName>(name: N, processor: Processor<N>, settings: WorkerSettings): Worker {
  const def = jobCatalog[name];
  const worker: Worker = new Worker(
    def.queue,
    // Three parameters: BullMQ then gives each job an AbortSignal (cancelJob / cancelAllJobs).
    async (job: Job, token?: string, signal?: AbortSignal) => {
      const logger = settings.logger.child({ queue: def.queue, jobId: job.id, attempt: job.attemptsMade + 1 });
      const parsed = def.payload.safeParse(job.data);
      if (!parsed.success) {
        logger.error({ issues: parsed.error.issues }, "job payload does not match the catalog schema");
        throw new UnrecoverableError("Job payload does not match its schema");
      }
      const started = Date.now();
      const running = runningJobs(worker);
      running.add(job.id!);
      try {
        const result = await unlessHandedBack(processor(parsed.data as JobPayload<N>, { job, logger }), signal);
        if (result === HANDED_BACK) {
          // The step abandoned here may still be running for the moment this process has left;
          // every step is safe to repeat (conditional moves, stored signed bytes, at-least-once
          // delivery), as after a lost lock.
          await job.moveToWait(token);
          logger.warn({ ms: Date.now() - started }, "job handed back to the queue (process stopping)");
          throw new WaitingError();
        }
        if (result instanceof RunAgain) {
          // Same job, same id, back in the delayed set; does not count as an attempt.
          await job.moveToDelayed(Date.now() + result.delayMs, token);
          throw new DelayedError();
        }
        logger.info({ ms: Date.now() - started }, "job completed");
        return result;
      } catch (e) {
        if (e instanceof DelayedError || e instanceof WaitingError) throw e;
        const error = toError(e);
        const retryable = isAppError(error) ? error.retryable : true;
        logger.warn({ err: error, retryable, ms: Date.now() - started }, "job failed");
        throw retryable ? error : new UnrecoverableError(error.message);
      } finally {
        running.delete(job.id!);
      }
    },
    {
      connection: settings.connection,
      prefix: settings.prefix,
      concurrency: settings.concurrency,
      ...(settings.lockDurationMs ? { lockDuration: settings.lockDurationMs, stalledInterval: settings.lockDurationMs } : {}),
    },
  );
  return worker;
}
