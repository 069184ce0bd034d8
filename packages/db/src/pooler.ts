import type { Pool, PoolConfig } from "pg";

/** What sits between a process and Postgres (DATABASE_POOLER, docs/operations.md "Behind PgBouncer"). */
export type DatabasePooler = "none" | "transaction";

/**
 * Session settings every pool wants. Sent as startup options when the process talks to Postgres
 * itself; behind a transaction pooler the server sessions are shared and PgBouncer refuses unknown
 * startup parameters, so the same settings must be made on the server side instead:
 * `ALTER DATABASE … SET enable_seqscan = off` (or the pooler's `connect_query`), and a role or
 * database of its own with `synchronous_commit = off` for an async-commit pool.
 */
export function sessionOptions(pooler: DatabasePooler, settings: { asyncCommit?: boolean }): Pick<PoolConfig, "options"> {
  if (pooler === "transaction") return {};
  return { options: ["-c enable_seqscan=off", ...(settings.asyncCommit ? ["-c synchronous_commit=off"] : [])].join(" ") };
}

/**
 * Behind a transaction pooler, consecutive statements of one client may run on different server
 * connections, so a statement prepared by name on one is missing on the next ("prepared statement
 * … does not exist"; PgBouncer 1.18 does not track them). Dropping the name sends every statement
 * unnamed: parsed and planned at each execution, which is the cost measured in docs/operations.md.
 * Statements inside a transaction (`pool.connect()`) stay on one server connection, but their
 * names would outlive it on that connection and clash with the next client's, so they lose it too.
 */
export function forgetStatementNames(pool: Pool): void {
  const unnamed = <T extends (...args: never[]) => unknown>(query: T): T =>
    function (this: unknown, ...args: unknown[]) {
      const [first] = args;
      // A query config, not a submittable (a cursor or stream object keeps its own prototype).
      if (first && typeof first === "object" && "name" in first && "text" in first && !("submit" in first)) {
        const { name: _name, ...rest } = first as Record<string, unknown>;
        args[0] = rest;
      }
      return (query as unknown as (...a: unknown[]) => unknown).apply(this, args);
    } as unknown as T;
  // pool.query() runs on one of these clients too.
  pool.on("connect", (client) => {
    client.query = unnamed(client.query.bind(client));
  });
}
