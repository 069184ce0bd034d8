import { createLogger, runProcess, STALLED_EXIT_CODE, type Logger } from "@relay/core";
import { createDatabase, createPool, warnIfAuditWritable, type Database, type DatabasePooler, type SqlPool } from "@relay/db";
import { createMetricsRegistry, serveWorkerMetrics, type Registry } from "@relay/metrics";
import { createRedis, keepScheduled, watchStalls, type KeepScheduledDeps, type Redis, type WorkerGroup } from "@relay/queue";

/** The settings every worker's configuration has (packages/config). */
export interface WorkerProcessConfig {
  logLevel: string;
  databaseUrl: string;
  databaseQueryTimeoutMs: number;
  databasePooler: DatabasePooler;
  redisUrl: string;
  /** Seeds of a Redis Cluster; empty: one Redis at redisUrl. */
  redisClusterNodes: readonly { host: string; port: number }[];
  /** Jobs run at once; the Postgres pool has as many connections, at most 20. */
  concurrency: number;
  shutdownGraceMs: number;
  metrics: { port: number; host: string; token: string | undefined };
}

/** What the process holds one of, handed to the app to build its worker on. */
export interface WorkerProcessDeps<C extends WorkerProcessConfig> {
  config: C;
  logger: Logger;
  pool: SqlPool;
  db: Database;
  redis: Redis;
  metricsRegistry: Registry;
}

/** What an app builds on them. */
export interface WorkerApp {
  /** Made with `autorun: false`: it takes no job until the start-up is complete. */
  worker: Pick<WorkerGroup, "workers" | "ready" | "run" | "close">;
  /** Upserts the app's repeating jobs; idempotent (every replica runs it, again after a reconnect). */
  schedule: KeepScheduledDeps["schedule"];
  /** The line logged once the worker takes jobs; the tests' process runner waits for its message. */
  started: { message: string; fields: Record<string, unknown> };
  /** Closes what the app built beside the worker: after the worker, before the connections. */
  close?: () => Promise<void>;
}

/** A worker that takes nothing this long while jobs are ready and it has free slots is stalled. */
const STALLED_AFTER_MS = 30_000;
const STALL_LOOK_EVERY_MS = 5_000;

/**
 * Runs a worker app as its own process (runProcess): loads its configuration, builds the shared
 * pieces, lets `build` make the worker on them, and takes jobs only once everything has started,
 * so a start-up that fails leaves no job locked to this process. On SIGTERM: no new jobs; active
 * ones finish within SHUTDOWN_GRACE_MS or go back to the queue for another replica; jobs not
 * started stay in Redis; then the connections close. A worker that stalls (stall-watch.ts in
 * @relay/queue) stops the process the same way, exiting STALLED_EXIT_CODE for its supervisor.
 */
export function runWorkerProcess<C extends WorkerProcessConfig>(name: string, loadConfig: () => C, build: (deps: WorkerProcessDeps<C>) => WorkerApp): void {
  runProcess(name, async (control) => {
    const config = loadConfig();
    const logger = createLogger({ name, level: config.logLevel });
    // Commits wait for the WAL flush: a signature answered 200, a transaction's move, is in
    // Postgres even if the process crashes right after (a PENDING record written without waiting is
    // flushed by the same commit). One flush per batch; no difference measured in
    // bench:personal-sign.
    const pool = createPool({
      url: config.databaseUrl,
      poolSize: Math.min(config.concurrency, 20),
      queryTimeoutMs: config.databaseQueryTimeoutMs,
      pooler: config.databasePooler,
    });
    const db = createDatabase({ pool });
    void warnIfAuditWritable(pool, logger);
    const redis = createRedis(config, "worker");
    redis.on("error", (err) => logger.warn({ err: err.message }, "redis connection error"));
    const metricsRegistry = createMetricsRegistry({ processMetrics: true });
    const app = build({ config, logger, pool, db, redis, metricsRegistry });
    await app.worker.ready();
    const metricsServer = await serveWorkerMetrics(config.metrics, metricsRegistry, logger);
    const schedules = await keepScheduled({ redis, logger, schedule: app.schedule });
    app.worker.run();
    logger.info(app.started.fields, app.started.message);
    const stalls = watchStalls({
      workers: app.worker.workers,
      connect: () => createRedis(config, "producer"),
      stalledAfterMs: STALLED_AFTER_MS,
      everyMs: STALL_LOOK_EVERY_MS,
      onStall: (stall) => {
        logger.error(
          { ...stall, exitCode: STALLED_EXIT_CODE },
          "a worker takes no jobs while its queue has ready ones and it has free slots (a Redis command that never settled, as after a failover): stopping, so that the supervisor starts a fresh process",
        );
        control.stopAndExit(STALLED_EXIT_CODE);
      },
    });

    return {
      logger,
      graceMs: config.shutdownGraceMs,
      stop: async () => {
        schedules.stop();
        await stalls.stop();
        const { handedBack } = await app.worker.close({ graceMs: config.shutdownGraceMs });
        logger.info({ handedBack }, "jobs in flight finished or handed back; closing connections");
        await app.close?.();
        await metricsServer.close();
        await Promise.allSettled([db.$disconnect(), pool.end(), redis.quit()]);
      },
    };
  });
}
