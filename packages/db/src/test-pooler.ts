import type { DatabasePooler } from "./pooler";

/**
 * The pooled test run (scripts/test.sh, RELAY_TEST_POOLER=transaction) puts PgBouncer in front of
 * the run's database; tests then make their pools as the apps would with DATABASE_POOLER set.
 * Read here rather than from @relay/testing, which depends on this package.
 */
export function testDatabasePooler(): DatabasePooler {
  return process.env.RELAY_TEST_POOLER === "transaction" ? "transaction" : "none";
}

/**
 * The run's database URL for what needs Postgres itself (creating and migrating a database: a
 * session advisory lock); the same as RELAY_TEST_DATABASE_URL when no pooler is in front.
 */
export function testDirectDatabaseUrl(): string | undefined {
  return process.env.RELAY_TEST_DIRECT_DATABASE_URL ?? process.env.RELAY_TEST_DATABASE_URL;
}
