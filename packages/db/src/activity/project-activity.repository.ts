import type { Sql } from "../client";
import { ACCEPTED, CONFIRMED, DELIVERIES, WAITING } from "./project-activity.sql";
import { QUEUE_DEPTHS } from "./queue-depth.sql";

/** The windows the activity read answers, and their bucket sizes. */
export const ACTIVITY_WINDOWS = {
  hour: { seconds: 3600, bucketSeconds: 60 },
  day: { seconds: 86_400, bucketSeconds: 900 },
} as const;
export type ActivityWindow = keyof typeof ACTIVITY_WINDOWS;

/** A confirmation is counted when the transaction was accepted at most this long before the window. */
const CONFIRM_LOOKBACK_MS = 86_400_000;

export interface ActivityBucket {
  start: Date;
  accepted: number;
  confirmed: number;
  /** Seconds from acceptance to CONFIRMED of the bucket's confirmations; null without any. */
  confirmSecondsP50: number | null;
  confirmSecondsP99: number | null;
  /** Delivery attempts to the project's receivers, and those answered with a 2xx. */
  deliveryAttempts: number;
  deliveredAttempts: number;
  /**
   * The most of the project's work waiting at a minute of the bucket, from the per-minute sample:
   * unfinished transactions and deliveries still to make. Null when no minute of it was sampled.
   */
  waitingTransactions: number | null;
  waitingDeliveries: number | null;
}

export interface ProjectActivity {
  window: ActivityWindow;
  bucketSeconds: number;
  buckets: ActivityBucket[];
  waiting: { pending: number; submitted: number; paused: number; deliveriesPending: number; eventsUndispatched: number };
}

/** A project's recent activity in buckets (GET …/activity): the console's charts. */
export function createProjectActivity(sql: Sql, now: () => number = Date.now) {
  return async (projectId: string, window: ActivityWindow): Promise<ProjectActivity> => {
    const { seconds, bucketSeconds } = ACTIVITY_WINDOWS[window];
    const bucketMs = bucketSeconds * 1000;
    // Bucket boundaries on whole multiples of the bucket size: the last bucket is the current one.
    const last = Math.floor(now() / bucketMs) * bucketMs;
    const count = seconds / bucketSeconds;
    const from = new Date(last - (count - 1) * bucketMs);
    const [accepted, confirmed, deliveries, waiting, depths] = await Promise.all([
      sql.query<{ bucket: number; n: number }>({ name: "activity.accepted", text: ACCEPTED }, [projectId, from, bucketSeconds]),
      sql.query<{ bucket: number; n: number; p50: number | null; p99: number | null }>({ name: "activity.confirmed", text: CONFIRMED }, [
        projectId,
        from,
        bucketSeconds,
        new Date(from.getTime() - CONFIRM_LOOKBACK_MS),
      ]),
      sql.query<{ bucket: number; n: number; ok: number }>({ name: "activity.deliveries", text: DELIVERIES }, [projectId, from, bucketSeconds]),
      sql.query<ProjectActivity["waiting"]>({ name: "activity.waiting", text: WAITING }, [projectId]),
      sql.query<{ bucket: number; transactions: number; deliveries: number }>({ name: "activity.queueDepths", text: QUEUE_DEPTHS }, [projectId, from, bucketSeconds]),
    ]);
    const buckets: ActivityBucket[] = Array.from({ length: count }, (_, i) => ({
      start: new Date(from.getTime() + i * bucketMs),
      accepted: 0,
      confirmed: 0,
      confirmSecondsP50: null,
      confirmSecondsP99: null,
      deliveryAttempts: 0,
      deliveredAttempts: 0,
      waitingTransactions: null,
      waitingDeliveries: null,
    }));
    // Rows past the last bucket (a clock a moment ahead of this process's) are left out.
    const at = (i: number) => buckets[i];
    for (const r of accepted.rows) {
      const b = at(r.bucket);
      if (b) b.accepted = r.n;
    }
    for (const r of confirmed.rows) {
      const b = at(r.bucket);
      if (!b) continue;
      b.confirmed = r.n;
      b.confirmSecondsP50 = r.p50 === null ? null : Number(r.p50);
      b.confirmSecondsP99 = r.p99 === null ? null : Number(r.p99);
    }
    for (const r of deliveries.rows) {
      const b = at(r.bucket);
      if (!b) continue;
      b.deliveryAttempts = r.n;
      b.deliveredAttempts = r.ok;
    }
    for (const r of depths.rows) {
      const b = at(r.bucket);
      if (!b) continue;
      b.waitingTransactions = r.transactions;
      b.waitingDeliveries = r.deliveries;
    }
    return { window, bucketSeconds, buckets, waiting: waiting.rows[0]! };
  };
}

export type ProjectActivityRead = ReturnType<typeof createProjectActivity>;
