import { Job, Queue, QueueEvents } from "bullmq";
import { duplicateRedis, type Redis } from "./connection";
import { AppError, createBatcher } from "@relay/core";
import { jobCatalog, jobIdOf, jobSchedules, type JobName, type JobPayload } from "./catalog";
import { redisReady } from "./connection";

export interface QueueSettings {
  connection: Redis;
  prefix: string;
}

/** At most this many jobs go into one addBulk of coalesced enqueues. */
const MAX_COALESCED = 100;

/**
 * How long an add waits for a connection that is not ready (still connecting, or reconnecting
 * after Redis went away) before it fails. BullMQ itself waits for ever: a gateway started while
 * Redis was down held every sendTransaction until Redis came back.
 */
const READY_WAIT_MS = 1000;

/**
 * Typed producers for the catalog's queues, created lazily, one Queue per name per process.
 *
 * Concurrent `enqueue` calls of one job name share one round trip: while two adds of that name
 * are out, further calls wait and go out together as one BullMQ addBulk (one MULTI); alone, a
 * call goes out at once. Under load (the gateway's sendTransaction) this saves a Redis round trip
 * and most of the client work per job; each call still gets its own job, or its own error.
 */
export function createProducer(settings: QueueSettings) {
  const queues = new Map<JobName, Queue>();
  const coalesced = new Map<JobName, (payload: unknown) => Promise<Job>>();

  // One wait shared by every add that finds the connection down, not a listener each.
  let readyWait: Promise<void> | undefined;
  const connected = async (): Promise<void> => {
    if (settings.connection.status === "ready") return;
    readyWait ??= redisReady(settings.connection, READY_WAIT_MS).finally(() => (readyWait = undefined));
    try {
      await readyWait;
    } catch (e) {
      throw new AppError("UNAVAILABLE", "Redis is not reachable; the job was not added", { retryable: true, cause: e });
    }
  };

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

  /** Adds parsed payloads of one kind in one round trip (BullMQ addBulk, one MULTI). */
  const addMany = async <N extends JobName>(name: N, payloads: readonly JobPayload<N>[]): Promise<Job[]> => {
    if (payloads.length === 0) return [];
    await connected();
    const def = jobCatalog[name];
    if (payloads.length === 1) return [await queueFor(name).add(name, payloads[0], { ...def.options, jobId: jobIdOf(name, payloads[0]!) })];
    return queueFor(name).addBulk(payloads.map((data) => ({ name, data, opts: { ...def.options, jobId: jobIdOf(name, data) } })));
  };

  return {
    /** Adds the job (idempotent per catalog job id) and returns it; see above for coalescing. */
    enqueue: async <N extends JobName>(name: N, payload: JobPayload<N>): Promise<Job> => {
      const data = jobCatalog[name].payload.parse(payload) as JobPayload<N>;
      let add = coalesced.get(name);
      if (!add) {
        add = createBatcher<unknown, Job>((many) => addMany(name, many as JobPayload<N>[]), { maxBatchSize: MAX_COALESCED, maxInFlight: 2 });
        coalesced.set(name, add);
      }
      return add(data);
    },
    /**
     * Adds many jobs of one kind in one round trip (BullMQ addBulk, one MULTI): for callers that
     * produce work in batches, such as the outbox dispatcher. Idempotent per job id like enqueue.
     */
    enqueueMany: async <N extends JobName>(name: N, payloads: readonly JobPayload<N>[]): Promise<Job[]> =>
      addMany(
        name,
        payloads.map((payload) => jobCatalog[name].payload.parse(payload) as JobPayload<N>),
      ),
    /** Creates or updates the catalog's schedule for `name` (idempotent; every replica may call it). */
    schedule: async (name: keyof typeof jobSchedules): Promise<void> => {
      const def = jobCatalog[name];
      await queueFor(name).upsertJobScheduler(name, { every: jobSchedules[name].everyMs }, {
        name,
        data: def.payload.parse({ v: 1 }),
        opts: { attempts: def.options.attempts, removeOnComplete: def.options.removeOnComplete, removeOnFail: def.options.removeOnFail },
      });
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
 * Waits for jobs of one queue to finish: one QueueEvents stream per process and queue, one
 * listener, and a map from job id to the request waiting for it. The caller registers its wait
 * *before* enqueueing (the job id is known from the catalog), so a job that finishes at once
 * cannot slip past, and no extra Redis round trip is needed to check for that.
 */
export function createResultWaiter(name: JobName, settings: { connection: Redis; prefix: string }) {
  // QueueEvents blocks on its connection (XREAD), so it gets its own; we close it ourselves.
  const connection = duplicateRedis(settings.connection, {
    maxRetriesPerRequest: null,
    enableOfflineQueue: true,
    commandTimeout: undefined, // XREAD BLOCK waits longer than a request-path time-out
  });
  const events = new QueueEvents(jobCatalog[name].queue, { connection, prefix: settings.prefix });
  const waiting = new Map<string, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();

  events.on("completed", ({ jobId, returnvalue }) => waiting.get(jobId)?.resolve(returnvalue));
  events.on("failed", ({ jobId, failedReason }) =>
    waiting.get(jobId)?.reject(new AppError("INTERNAL", `Job ${jobId} failed: ${failedReason}`)),
  );

  return {
    events,
    ready: () => events.waitUntilReady(),
    /**
     * Starts waiting for `jobId`. The promise resolves with the job's return value, or rejects with
     * AppError TIMEOUT after `timeoutMs`, or INTERNAL with the worker's reason when it failed for good.
     */
    expect: (jobId: string, timeoutMs: number): Promise<unknown> =>
      new Promise<unknown>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(jobId);
          reject(new AppError("TIMEOUT", `Job ${jobId} did not finish within ${timeoutMs} ms`, { retryable: true }));
        }, timeoutMs);
        const settle = () => {
          clearTimeout(timer);
          waiting.delete(jobId);
        };
        waiting.set(jobId, {
          resolve: (value) => {
            settle();
            resolve(value);
          },
          reject: (error) => {
            settle();
            reject(error);
          },
        });
      }),
    close: async () => {
      await events.close();
      await connection.quit().catch(() => connection.disconnect());
    },
  };
}

export type ResultWaiter = ReturnType<typeof createResultWaiter>;
