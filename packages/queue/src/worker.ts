import { DelayedError, UnrecoverableError, WaitingError, Worker, type Job } from "bullmq";
import type { Redis } from "./connection";
import { isAppError, toError, type Logger } from "@relay/core";
import { jobCatalog, type JobName, type JobPayload } from "./catalog";
import { firstDueAt, isLastAttempt, linkedIdsOf, type JobObserver, type JobOutcome } from "./job-report";
import { HAND_BACK_REASON, HANDED_BACK, runningJobs, unlessHandedBack } from "./hand-back";
import { backoffStrategy } from "./retry-backoff";

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
  /** Told about every run of every job (metrics). */
  observer?: JobObserver;
  /**
   * False: the worker takes no job until `run()` (WorkerGroup.run), so a process takes work only
   * once its start-up is complete; a start-up that fails then leaves no job locked to a process
   * about to exit. Default true (tests).
   */
  autorun?: boolean;
}

export interface ProcessorContext {
  job: Job;
  logger: Logger;
  /**
   * True once this run was handed back to the queue (the process is stopping and its grace period
   * ran out): another replica may be running the job already, and this run's result is ignored.
   * A processor whose writes must not overlap with another run's checks it before them. Absent
   * where a processor is called directly (tests).
   */
  handedBack?: () => boolean;
}

export type Processor<N extends JobName> = (payload: JobPayload<N>, context: ProcessorContext) => Promise<unknown>;

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
      const attempt = job.attemptsMade + 1;
      const parsed = def.payload.safeParse(job.data);
      // The payload's ids (the request that created the job, its records) go on every line of the
      // job, so its log lines can be found from the request's line and the other way round. One
      // child logger per job: it is built on every job, logged or not.
      const logger = settings.logger.child({ queue: def.queue, jobId: job.id, attempt, ...(parsed.success ? linkedIdsOf(parsed.data) : {}) });
      const started = Date.now();
      const report = (outcome: JobOutcome, fields: Record<string, unknown> = {}) => {
        const finishedAt = Date.now();
        const durationMs = finishedAt - started;
        const latencyMs = outcome === "completed" || outcome === "failed" ? Math.max(0, finishedAt - firstDueAt(job)) : undefined;
        try {
          settings.observer?.observe({ queue: def.queue, outcome, durationMs, latencyMs });
        } catch (e) {
          // Metrics must never change what happens to a job (a completed job counted as failed would run again).
          logger.warn({ err: toError(e) }, "job observer failed");
        }
        // One line per job: when it finished, failed, or will be retried; a run that only put the
        // job back to wait (RunAgain) is a debug line.
        const line = { outcome, durationMs, ...(latencyMs === undefined ? {} : { latencyMs }), ...fields };
        if (outcome === "completed") logger.info(line, "job completed");
        else if (outcome === "run_again") logger.debug(line, "job runs again later");
        else logger.warn(line, outcome === "failed" ? "job failed" : "job failed; will retry");
      };
      if (!parsed.success) {
        report("failed", { issues: parsed.error.issues, reason: "job payload does not match the catalog schema" });
        throw new UnrecoverableError("Job payload does not match its schema");
      }
      const running = runningJobs(worker);
      running.add(job.id!);
      try {
        const handedBack = () => signal?.aborted === true && signal.reason === HAND_BACK_REASON;
        const result = await unlessHandedBack(processor(parsed.data as JobPayload<N>, { job, logger, handedBack }), signal);
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
          report("run_again", { runAgainInMs: result.delayMs });
          throw new DelayedError();
        }
        report("completed");
        return result;
      } catch (e) {
        if (e instanceof DelayedError || e instanceof WaitingError) throw e;
        const error = toError(e);
        const retryable = isAppError(error) ? error.retryable : true;
        report(isLastAttempt(job, retryable) ? "failed" : "retrying", { err: error, retryable });
        throw retryable ? error : new UnrecoverableError(error.message);
      } finally {
        running.delete(job.id!);
      }
    },
    {
      connection: settings.connection,
      prefix: settings.prefix,
      concurrency: settings.concurrency,
      settings: { backoffStrategy },
      autorun: settings.autorun ?? true,
      ...("maxStalledCount" in def ? { maxStalledCount: def.maxStalledCount } : {}),
      ...(settings.lockDurationMs ? { lockDuration: settings.lockDurationMs, stalledInterval: settings.lockDurationMs } : {}),
    },
  );
  return worker;
}
