import { z } from "zod";
import { ConfigError } from "./load";
import {
  databasePooler,
  databaseQueryTimeoutMs,
  databaseUrl,
  logLevel,
  nodeEnv,
  queuePrefix,
  redisClusterNodes,
  redisUrl,
  shutdownGraceMs,
  hashTag,
  toWorkerMetrics,
  workerMetricsFields,
  type WorkerMetricsConfig,
} from "./fields";

/** What every app reads: environment, logs, Postgres, Redis, queue prefix, shutdown. */
export const common = {
  NODE_ENV: nodeEnv,
  LOG_LEVEL: logLevel,
  DATABASE_URL: databaseUrl,
  DATABASE_POOLER: databasePooler,
  REDIS_URL: redisUrl,
  REDIS_CLUSTER_NODES: redisClusterNodes,
  QUEUE_PREFIX: queuePrefix,
  SHUTDOWN_GRACE_MS: shutdownGraceMs,
};

export interface CommonConfig {
  env: "development" | "production" | "test";
  logLevel: string;
  databaseUrl: string;
  /** `transaction` when DATABASE_URL is a transaction-mode PgBouncer (docs/operations.md). */
  databasePooler: "none" | "transaction";
  redisUrl: string;
  /** Seeds of a Redis Cluster; empty: one Redis at redisUrl. */
  redisClusterNodes: readonly RedisNode[];
  queuePrefix: string;
  /** How long SIGTERM waits for work in flight before handing it back (docs/operations.md). */
  shutdownGraceMs: number;
}

export interface RedisNode {
  host: string;
  port: number;
}

export const toCommon = (v: z.output<z.ZodObject<typeof common>>): CommonConfig => {
  if (v.REDIS_CLUSTER_NODES.length > 0) assertOneSlotPrefix(v.QUEUE_PREFIX);
  return {
    env: v.NODE_ENV,
    logLevel: v.LOG_LEVEL,
    databaseUrl: v.DATABASE_URL,
    databasePooler: v.DATABASE_POOLER,
    redisUrl: v.REDIS_URL,
    redisClusterNodes: Object.freeze(v.REDIS_CLUSTER_NODES.map((n) => Object.freeze({ ...n }))),
    queuePrefix: v.QUEUE_PREFIX,
    shutdownGraceMs: v.SHUTDOWN_GRACE_MS,
  };
};

/**
 * A BullMQ queue's keys ("<prefix>:<queue>:wait", ":active", …) are touched together by one Lua
 * script, which Redis Cluster runs only when every key lies in one slot. A prefix that is a hash
 * tag puts them all in the slot of its tag; any other prefix spreads a queue over many slots and
 * every script would fail with CROSSSLOT at run time, so it is refused here.
 */
function assertOneSlotPrefix(prefix: string): void {
  const tag = hashTag(prefix);
  if (tag !== undefined) return;
  throw new ConfigError(
    `Invalid configuration:\n  QUEUE_PREFIX (${JSON.stringify(prefix)}): with REDIS_CLUSTER_NODES set, the prefix must hold a non-empty hash tag ({…}, its first { and the first } after it) so each queue's keys share one cluster slot; use e.g. QUEUE_PREFIX={${prefix.replace(/[{}]/g, "") || "relay"}}`,
  );
}

/**
 * What every worker has beside the common settings. A worker's statements are short (one row, one
 * batch); the time-out is long enough for any of them under load and short enough that a query on
 * a dead connection does not hold its job, and the jobs queued behind it, for good.
 */
export const workerCommon = { ...common, ...workerMetricsFields, DATABASE_QUERY_TIMEOUT_MS: databaseQueryTimeoutMs(30_000) };

export interface WorkerCommonConfig extends CommonConfig {
  metrics: WorkerMetricsConfig;
  /** A query waits at most this long for Postgres' answer (a vanished server). */
  databaseQueryTimeoutMs: number;
}

export const toWorkerCommon = (v: z.output<z.ZodObject<typeof workerCommon>>): WorkerCommonConfig => ({
  ...toCommon(v),
  metrics: toWorkerMetrics(v),
  databaseQueryTimeoutMs: v.DATABASE_QUERY_TIMEOUT_MS,
});

/**
 * How long work stays quiet before a reconciler checks that it still has a live job. Only a check
 * (a job that exists is left alone), so a short value costs Redis reads, not double work.
 */
export const reconcileAfterMs = z.coerce.number().int("must be a whole number").min(1000, "must be at least 1000 ms").default(60_000);
