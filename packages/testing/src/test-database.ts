import { escapeIdentifier } from "pg";
import { createLogger } from "@relay/core";
import { migrate, withDatabase } from "@relay/db";
import { testServerUrl, withServerClient } from "./postgres-server";
import { newTestDatabaseName } from "./test-database-name";

export interface TestDatabase {
  url: string;
  name: string;
  /** Drops the database, closing connections a test left open. */
  drop(): Promise<void>;
}

export interface TestDatabaseOptions {
  /** Apply prisma/migrations with the project's migrate step (default true). */
  migrate?: boolean;
  /** Maintenance-database URL of the server (default testServerUrl()). */
  serverUrl?: string;
}

/** A new, uniquely named database; migrated unless `migrate: false`. */
export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const serverUrl = options.serverUrl ?? testServerUrl();
  const name = newTestDatabaseName();
  await withServerClient(serverUrl, (c) => c.query(`CREATE DATABASE ${escapeIdentifier(name)}`));
  const direct = withDatabase(serverUrl, name);
  const database: TestDatabase = {
    url: throughRunPooler(direct),
    name,
    drop: () => dropTestDatabase(serverUrl, name),
  };
  if (options.migrate ?? true) {
    try {
      await migrate({ databaseUrl: direct, logger: createLogger({ name: "test-migrate", level: "silent" }) });
    } catch (e) {
      await database.drop().catch(() => undefined);
      throw e;
    }
  }
  return database;
}

/**
 * In the pooled run (src/run-pooler.ts), the URL tests get goes through its PgBouncer, whose `*`
 * entry serves every database of the server; otherwise `url` itself.
 */
function throughRunPooler(url: string): string {
  const port = process.env.RELAY_TEST_POOLER_PORT;
  if (!port) return url;
  const u = new URL(url);
  u.hostname = "127.0.0.1";
  u.port = port;
  return u.toString();
}

export async function dropTestDatabase(serverUrl: string, name: string): Promise<void> {
  // FORCE: a test that forgot to close its pool must not leave the database behind.
  await withServerClient(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${escapeIdentifier(name)} WITH (FORCE)`));
}

/**
 * The database the jest global setup created and migrated for this run. Tests share it, so each
 * test makes its own rows (fresh ids, its own project) instead of expecting empty tables.
 */
export function testDatabaseUrl(): string {
  const url = process.env.RELAY_TEST_DATABASE_URL;
  if (!url) {
    throw new Error(
      "RELAY_TEST_DATABASE_URL is not set: run tests through jest with the workspace jest.config.js, " +
        "whose global setup (packages/testing/src/jest/global-setup.ts) creates the test database",
    );
  }
  return url;
}
