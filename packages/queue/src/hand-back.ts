import type { Worker } from "bullmq";

/**
 * Handing a job back at shutdown. A stopping process waits for its active jobs up to its grace
 * period; a job still running then is aborted (BullMQ's per-job AbortSignal, `cancelAllJobs`)
 * with this reason, and the worker moves it from active back to wait with its lock token: the
 * lock is released and another replica starts it at once, instead of after the lock expires and a
 * stalled-job check notices (up to three lock durations).
 */
export const HAND_BACK_REASON = "process stopping: job handed back to the queue";

export const HANDED_BACK: unique symbol = Symbol("handed back");

/**
 * `work`, or HANDED_BACK as soon as `signal` is aborted for a hand-back (whichever comes first).
 * The abandoned `work` keeps running until the process exits; its outcome is ignored.
 */
export function unlessHandedBack<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T | typeof HANDED_BACK> {
  if (!signal) return work;
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      if (signal.reason !== HAND_BACK_REASON) return;
      work.catch(() => undefined);
      resolve(HANDED_BACK);
    };
    if (signal.aborted) onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** Jobs a worker is running now, by id; kept by createTypedWorker. */
const running = new WeakMap<Worker, Set<string>>();

export const runningJobs = (worker: Worker): Set<string> => {
  let jobs = running.get(worker);
  if (!jobs) {
    jobs = new Set();
    running.set(worker, jobs);
  }
  return jobs;
};
