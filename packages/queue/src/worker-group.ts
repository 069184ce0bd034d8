import type { Worker } from "bullmq";
import { HAND_BACK_REASON, runningJobs } from "./hand-back";

/** Several workers of one app started and stopped together. */
export interface WorkerGroup {
  workers: Worker[];
  ready(): Promise<void>;
  /** Starts taking jobs, for workers made with `autorun: false`; the others already do. */
  run(): void;
  /**
   * Stops taking jobs at once and waits for the ones in flight, at most `graceMs` (no bound
   * without it). Jobs still running then are handed back to the queue, where another replica
   * starts them at once; jobs not started stay in Redis for other replicas. Resolves with how many
   * were handed back, once every worker is closed.
   */
  close(options?: { graceMs?: number }): Promise<{ handedBack: number }>;
}

export function workerGroup(workers: Worker[]): WorkerGroup {
  return {
    workers,
    ready: async () => {
      await Promise.all(workers.map((w) => w.waitUntilReady()));
    },
    run: () => {
      // run() resolves when the worker closes; its failures are the worker's 'error' events.
      for (const worker of workers) if (!worker.isRunning() && !worker.closing) void worker.run().catch((e: unknown) => worker.emit("error", e as Error));
    },
    close: async (options = {}) => {
      // BullMQ's close(): no new jobs; resolves when the active ones have finished.
      const closed = Promise.all(workers.map((w) => w.close()));
      if (options.graceMs === undefined) {
        await closed;
        return { handedBack: 0 };
      }
      let timer: NodeJS.Timeout | undefined;
      const inTime = await Promise.race([
        closed.then(() => true),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), options.graceMs))),
      ]);
      clearTimeout(timer);
      if (inTime) return { handedBack: 0 };
      let handedBack = 0;
      for (const worker of workers) {
        handedBack += runningJobs(worker).size;
        worker.cancelAllJobs(HAND_BACK_REASON);
      }
      await closed;
      return { handedBack };
    },
  };
}
