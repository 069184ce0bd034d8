import { PrismaPg } from "@prisma/adapter-pg";
import { Pool } from "pg";
import { PrismaClient } from "./generated/client";
import { forgetStatementNames, sessionOptions, type DatabasePooler } from "./pooler";

export type Database = PrismaClient;

/** What hand-written SQL needs: the pg pool's `query`. */
export type Sql = Pick<Pool, "query">;

/** As Sql, for code that also needs a connection of its own (a multi-statement transaction). */
export type SqlPool = Pick<Pool, "query" | "connect">;

export interface DatabaseSettings {
  url: string;
  /** Pool size of this process; each replica holds its own pool (see docs/operations.md). */
  poolSize?: number;
  /** Fail a connection attempt after this long instead of hanging while Postgres is down. */
  connectTimeoutMs?: number;
  /**
   * Give up waiting for a query's answer after this long (node-postgres `query_timeout`), so a
   * Postgres that accepts connections but stalls (frozen host, network black hole) cannot hold a
   * request forever. The query may still complete on the server afterwards. Default: no limit.
   */
  queryTimeoutMs?: number;
  /**
   * Commit without waiting for the WAL flush (`synchronous_commit = off`). Only for pools whose
   * writes can be lost in a Postgres crash without losing anything a client was promised: the
   * gateway's PENDING signature records (the signing worker's synchronous commit of the signature
   * flushes them too; one lost before it is "gone" to the worker, and the request answers 500).
   */
  asyncCommit?: boolean;
  /**
   * `transaction`: DATABASE_URL is PgBouncer in transaction pooling mode; statements go unnamed and
   * the session settings above are left to the server (src/pooler.ts). Default `none`.
   */
  pooler?: DatabasePooler;
}

/** The pg pool of a process; Prisma and the hot-path SQL repositories share it. */
export function createPool(settings: DatabaseSettings): Pool {
  const pooler = settings.pooler ?? "none";
  const pool = new Pool({
    connectionString: settings.url,
    max: settings.poolSize ?? 10,
    connectionTimeoutMillis: settings.connectTimeoutMs ?? 5000,
    // pg's default closes a connection idle for 10 s: under bursty load (the workers' batched
    // statements) connections were opened, closed and opened again, each time a new Postgres
    // backend with cold caches and every named statement prepared anew. A quiet minute still
    // gives them back.
    idleTimeoutMillis: 60_000,
    ...(settings.queryTimeoutMs ? { query_timeout: settings.queryTimeoutMs } : {}),
    // TCP keep-alive probes: an idle connection whose server vanished (host lost, fail-over) is
    // found dead and dropped, instead of being handed out and answering nothing (pg's default is off).
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    // Sequential scans only where no index serves (docs/architecture.md, "Index plans regardless of
    // statistics"): a named statement's generic plan, made while a table was small, otherwise
    // keeps scanning it whole as it grows until statistics change, and without autovacuum they never do.
    ...sessionOptions(pooler, settings),
  });
  if (pooler === "transaction") forgetStatementNames(pool);
  // An idle connection that drops (Postgres restart) emits 'error' on the pool; without a
  // listener it would end the process. The next query reconnects.
  pool.on("error", () => undefined);
  return pool;
}

/**
 * The one Prisma client of a process, on the pg driver adapter (no Prisma engine binaries). Pass
 * the process's pool to share it with hand-written SQL; the pool is then ended with the client.
 */
export function createDatabase(settings: DatabaseSettings | { pool: Pool }): Database {
  const pool = "pool" in settings ? settings.pool : createPool(settings);
  return new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
}
