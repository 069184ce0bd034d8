import { Queue, type Worker } from "bullmq";
import { redisReady, type Redis } from "./connection";
import { runningJobs } from "./hand-back";

/** A worker that takes no job although its queue has ready ones and it has free slots. */
export interface Stall {
  queue: string;
  /** Jobs waiting to be taken (wait and prioritized) at the last look. */
  readyJobs: number;
  /** Since when the worker has been taking nothing while jobs were ready. */
  idleMs: number;
}

export interface StallWatchDeps {
  workers: readonly Worker[];
  /**
   * Makes the watch's own connection (again after a look it did not answer): the process's other
   * connections may be the wedged ones, and a count that waits on them forever tells nothing.
   */
  connect: () => Redis;
  onStall: (stall: Stall) => void;
  /** How long a worker with free slots may start nothing while jobs are ready before it counts as stalled. */
  stalledAfterMs: number;
  /**
   * How long a worker may neither start nor finish a job while jobs are ready, its slots full or
   * not, before it counts as stalled (a job parked on the same wedged connection holds its slot).
   * Longer than any job runs. Default four times `stalledAfterMs`.
   */
  stuckAfterMs?: number;
  /** How often to look. */
  everyMs: number;
  now?: () => number;
}

/**
 * Watches a process's BullMQ workers for the one failure they cannot report themselves: a fetch
 * loop parked on a Redis command that will never settle. After a Redis Cluster failover, a
 * command queued on the lost master's connection can be dropped without an answer or an error;
 * the worker then waits for it forever while its queue fills. Nothing errs and nothing is lost
 * (the jobs sit in Redis), but nothing runs either.
 *
 * A worker is stalled when its queue had jobs ready to run all along and, with free slots, it
 * started none for `stalledAfterMs`, or, with its slots full, none of its jobs started or ended for
 * `stuckAfterMs`. The counts are read on the watch's own connection, made again after a look it did
 * not answer, as the process's connections may be the wedged ones. A worker that is closing is left alone; a look Redis does not answer within
 * `everyMs` says nothing (Redis itself is away, which the connections wait out). `onStall` is
 * called once per watch; the caller decides (a worker process stops, so that its supervisor starts
 * a fresh one with fresh connections).
 */
export function watchStalls(deps: StallWatchDeps): { stop(): Promise<void> } {
  const now = deps.now ?? Date.now;
  const stuckAfterMs = deps.stuckAfterMs ?? 4 * deps.stalledAfterMs;
  const watched = deps.workers.map((worker) => {
    const state = { worker, startedAt: now(), movedAt: now() };
    worker.on("active", () => (state.startedAt = state.movedAt = now()));
    const moved = () => (state.movedAt = now());
    worker.on("completed", moved);
    worker.on("failed", moved);
    return state;
  });
  let reported = false;
  let looking: Promise<void> = Promise.resolve();
  const probe = probeConnection(deps.connect, deps.workers);

  const look = async () => {
    const open = watched.filter((s) => !s.worker.closing);
    if (open.length === 0) return;
    const counts = await probe.readyJobs(open.map((s) => s.worker), deps.everyMs);
    open.forEach((state, i) => {
      const ready = counts?.[i];
      const free = runningJobs(state.worker).size < state.worker.concurrency;
      if (ready === undefined || ready === 0) {
        // Nothing to take, or Redis cannot say: neither counts against the worker.
        state.startedAt = state.movedAt = now();
        return;
      }
      // A full worker cannot start anything: its clock for starting runs from when a slot frees.
      if (!free) state.startedAt = now();
      const idleMs = now() - (free ? state.startedAt : state.movedAt);
      if (idleMs >= (free ? deps.stalledAfterMs : stuckAfterMs) && !reported) {
        reported = true;
        deps.onStall({ queue: state.worker.name, readyJobs: ready, idleMs });
      }
    });
  };
  const timer = setInterval(() => {
    looking = looking.then(look).catch(() => undefined);
  }, deps.everyMs);
  timer.unref();

  return {
    stop: async () => {
      clearInterval(timer);
      await withinMs(looking, deps.everyMs);
      probe.close();
    },
  };
}

/**
 * The connection the counts are read on: the watch's own, not one the workers use, made when first
 * needed and made again after a look it did not answer in time (it may be the wedged one then).
 */
function probeConnection(connect: () => Redis, workers: readonly Worker[]) {
  let current: { connection: Redis; queues: Map<string, Queue> } | undefined;
  const drop = () => {
    current?.connection.disconnect();
    current = undefined;
  };
  const open = () => {
    if (current) return current;
    const connection = connect();
    const queues = new Map(workers.map((w) => [w.name, new Queue(w.name, { connection, prefix: w.opts.prefix })]));
    current = { connection, queues };
    return current;
  };
  /** Ready jobs (wait and prioritized) of each worker's queue; undefined when not answered within `ms`. */
  const readyJobs = async (of: Worker[], ms: number): Promise<number[] | undefined> => {
    const { connection, queues } = open();
    const counts = await withinMs(
      (async () => {
        await redisReady(connection, ms);
        return Promise.all(
          of.map(async (worker) => {
            const counts = await queues.get(worker.name)!.getJobCounts("wait", "prioritized");
            return (counts.wait ?? 0) + (counts.prioritized ?? 0);
          }),
        );
      })(),
      ms,
    );
    if (counts === undefined) drop();
    return counts;
  };
  return { readyJobs, close: drop };
}

/** `work`'s value, or undefined when it has not settled (or failed) within `ms`. */
function withinMs<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work.catch(() => undefined),
    new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms))),
  ]).finally(() => clearTimeout(timer));
}
