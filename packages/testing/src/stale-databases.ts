import { escapeIdentifier } from "pg";
import { withServerClient } from "./postgres-server";
import { TEST_DATABASE_LIKE, testDatabaseCreatedAt } from "./test-database-name";

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Drops test databases that runs which crashed before their teardown left behind, once they are
 * older than `maxAgeMs`: young ones may belong to a run going on in parallel. Names whose age
 * cannot be told are left alone. Returns the names dropped.
 */
export async function dropStaleTestDatabases(serverUrl: string, maxAgeMs = DAY_MS, now = Date.now()): Promise<string[]> {
  return withServerClient(serverUrl, async (client) => {
    const { rows } = await client.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE $1",
      [TEST_DATABASE_LIKE],
    );
    const stale = rows
      .map((r) => r.datname)
      .filter((name) => {
        const createdAt = testDatabaseCreatedAt(name);
        return createdAt !== undefined && now - createdAt.getTime() > maxAgeMs;
      });
    const dropped: string[] = [];
    for (const name of stale) {
      // No FORCE: a day-old database somebody still uses is theirs to keep.
      const ok = await client.query(`DROP DATABASE IF EXISTS ${escapeIdentifier(name)}`).then(
        () => true,
        () => false,
      );
      if (ok) dropped.push(name);
    }
    return dropped;
  });
}
