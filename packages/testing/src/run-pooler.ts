import { startPgBouncer } from "./pgbouncer";
import type { TestDatabase } from "./test-database";

/**
 * The pooled test run (RELAY_TEST_POOLER=transaction): a PgBouncer in transaction mode in front of
 * the run's database, set up as docs/operations.md tells operators to. The tests then get its URL
 * from testDatabaseUrl() and make their pools with the pooler setting (testDatabasePooler()); what
 * must reach Postgres itself (creating and migrating a database of a test's own) uses
 * RELAY_TEST_DIRECT_DATABASE_URL.
 */
export async function startRunPooler(serverUrl: string, database: TestDatabase): Promise<{ stop: () => Promise<void> }> {
  // Fewer server connections than the suites' pools have clients (up to 20), so statements of one
  // client really do move between server connections, on a Postgres other runs share.
  // connect_query: what the apps' startup option does on a direct connection, made by the pooler.
  const bouncer = await startPgBouncer({ serverUrl, poolSize: 8, connectQuery: "SET enable_seqscan = off" });
  process.env.RELAY_TEST_DIRECT_DATABASE_URL = database.url;
  // Databases tests make of their own (createTestDatabase) are handed out through it too.
  process.env.RELAY_TEST_POOLER_PORT = String(bouncer.port);
  process.env.RELAY_TEST_DATABASE_URL = bouncer.through(database.url);
  return bouncer;
}
