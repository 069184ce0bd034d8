import type { Env } from "./load";

/** What sits in front of a test run's database: none, or PgBouncer in transaction mode (DATABASE_POOLER's values). */
export type TestRunPooler = "none" | "transaction";

/**
 * The pooled test run (scripts/test.sh, RELAY_TEST_POOLER=transaction) puts PgBouncer in front of
 * the run's database; tests then make their pools as the apps would with DATABASE_POOLER set.
 */
export function testDatabasePooler(env: Env = process.env): TestRunPooler {
  return env.RELAY_TEST_POOLER === "transaction" ? "transaction" : "none";
}

/**
 * The run's database URL for what needs Postgres itself (creating and migrating a database: a
 * session advisory lock); the same as RELAY_TEST_DATABASE_URL when no pooler is in front.
 */
export function testDirectDatabaseUrl(env: Env = process.env): string | undefined {
  return env.RELAY_TEST_DIRECT_DATABASE_URL ?? env.RELAY_TEST_DATABASE_URL;
}
