import { Job, Queue, QueueEvents } from "bullmq";
import type { Redis } from "ioredis";
import { AppError } from "@relay/core";
import { jobCatalog, type JobName, type JobPayload } from "./catalog";

export interface QueueSettings {
  connection: Redis;
  prefix: string;
}

/** Typed producers for the catalog's queues, created lazily, one Queue per name per process. */
export function createProducer(settings: QueueSettings) {
  const queues = new Map<JobName, Queue>();

  const queueFor = (name: JobName): Queue => {
    let queue = queues.get(name);
    if (!queue) {
      queue = new Queue(jobCatalog[name].queue, { connection: settings.connection, prefix: settings.prefix });
      // Every request waiting for a result listens on the queue; many wait at once by design.
      queue.setMaxListeners(0);
      queues.set(name, queue);
    }
    return queue;
  };

  return {
    /** Adds the job (idempotent per catalog job id) and returns it. */
    enqueue: async <N extends JobName>(name: N, payload: JobPayload<N>): Promise<Job> => {
      const def = jobCatalog[name];
      const data = def.payload.parse(payload);
      return queueFor(name).add(name, data, { ...def.options, jobId: def.jobId(data as never) });
    },
    /** Removes a job that is not running (yet); a running one is left to finish. */
    discard: async (job: Job): Promise<void> => {
      await job.remove().catch(() => undefined);
    },
    queue: queueFor,
    close: async () => {
      await Promise.all([...queues.values()].map((q) => q.close()));
    },
  };
}

export type Producer = ReturnType<typeof createProducer>;

/**
 * Waits for jobs of one queue to finish. One QueueEvents stream per process and queue; each
 * waiting request adds a listener for its own job id.
 */
export function createResultWaiter(name: JobName, settings: { connection: Redis; prefix: string }) {
  // QueueEvents blocks on its connection (XREAD), so it gets its own; we close it ourselves.
  const connection = settings.connection.duplicate({ maxRetriesPerRequest: null, enableOfflineQueue: true });
  const events = new QueueEvents(jobCatalog[name].queue, { connection, prefix: settings.prefix });
  events.setMaxListeners(0);

  return {
    events,
    /**
     * The job's return value; AppError TIMEOUT when it has not finished in time, INTERNAL with the
     * worker's reason when it failed for good.
     */
    wait: async (job: Job, timeoutMs: number): Promise<unknown> => {
      try {
        return await job.waitUntilFinished(events, timeoutMs);
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        if (/timed out before finishing/.test(message)) {
          throw new AppError("TIMEOUT", `Job ${job.id} did not finish within ${timeoutMs} ms`, { retryable: true });
        }
        throw new AppError("INTERNAL", `Job ${job.id} failed: ${message}`, { cause: e });
      }
    },
    close: async () => {
      await events.close();
      await connection.quit().catch(() => connection.disconnect());
    },
  };
}

export type ResultWaiter = ReturnType<typeof createResultWaiter>;
