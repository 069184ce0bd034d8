/**
 * Once per jest run, before any worker starts: a fresh migrated database for the whole run, its URL
 * and a run id exported through the environment that the workers inherit. Integration tests read
 * them with testDatabaseUrl() and testQueuePrefix(). With RELAY_TEST_POOLER=transaction, that URL is
 * a PgBouncer's in transaction mode in front of the database (src/run-pooler.ts).
 */
import { toError } from "@relay/core";
import { testServerUrl } from "../postgres-server";
import { newRunId } from "../run-id";
import { dropStaleTestDatabases } from "../stale-databases";
import { createTestDatabase } from "../test-database";
import { createSoftHsmStore } from "../softhsm";
import { startRunPooler } from "../run-pooler";
import { saveRunState } from "./run-state";

export default async function globalSetup(): Promise<void> {
  process.env.RELAY_TEST_RUN_ID ||= newRunId();
  const serverUrl = testServerUrl();
  const database = await createTestDatabase({ serverUrl, migrate: true }).catch((e: unknown) => {
    const server = new URL(serverUrl);
    throw new Error(
      `Cannot create the test database on ${server.host} (is Postgres running? see DESIGN.md, "Tooling facts"): ` +
        toError(e).message,
      { cause: e },
    );
  });
  process.env.RELAY_TEST_DATABASE_URL = database.url;
  const pooler = process.env.RELAY_TEST_POOLER === "transaction" ? await startRunPooler(serverUrl, database) : null;
  // Leftovers of crashed runs go in the background, so they never slow the start; teardown waits.
  const staleCleanup = dropStaleTestDatabases(serverUrl).catch(() => []);
  // The custody tests' PKCS#11 tokens (packages/testing/src/softhsm.ts), in a store of the run's own.
  const softHsm = createSoftHsmStore();
  if (softHsm) process.env.SOFTHSM2_CONF = softHsm.conf;
  saveRunState({ database, staleCleanup, softHsm, pooler });
}
