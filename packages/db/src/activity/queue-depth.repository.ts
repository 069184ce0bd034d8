import type { Sql } from "../client";
import { PRUNE_MINUTES, PRUNE_SAMPLES, SAMPLE } from "./queue-depth.sql";

/** How long samples are kept: the activity page's longest window, and a margin. */
export const QUEUE_DEPTH_KEPT_MS = 25 * 3600_000;

const MINUTE_MS = 60_000;

/**
 * The per-minute queue depth sample (docs/console.md, "Activity"): how much of each project's work
 * waits, written by the `sampleQueueDepths` job once a minute and read by the activity route.
 */
export function createQueueDepthRepository(sql: Sql) {
  return {
    /**
     * Samples the minute `atMs` falls in, once whichever replica comes first, and deletes samples
     * older than a day. Answers how many projects had work waiting, or null when the minute was
     * already sampled.
     */
    sample: async (atMs: number): Promise<{ projects: number | null }> => {
      const minute = new Date(Math.floor(atMs / MINUTE_MS) * MINUTE_MS);
      const { rows } = await sql.query<{ projects: number | null }>({ name: "queueDepth.sample", text: SAMPLE }, [minute]);
      const oldest = new Date(minute.getTime() - QUEUE_DEPTH_KEPT_MS);
      await sql.query({ name: "queueDepth.pruneSamples", text: PRUNE_SAMPLES }, [oldest]);
      await sql.query({ name: "queueDepth.pruneMinutes", text: PRUNE_MINUTES }, [oldest]);
      return { projects: rows[0]?.projects ?? null };
    },
  };
}

export type QueueDepthRepository = ReturnType<typeof createQueueDepthRepository>;
