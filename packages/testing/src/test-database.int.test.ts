import { Client } from "pg";
import { dropStaleTestDatabases } from "./stale-databases";
import { testServerUrl, withServerClient } from "./postgres-server";
import { createTestDatabase, testDatabaseUrl } from "./test-database";
import { newTestDatabaseName, testDatabaseCreatedAt } from "./test-database-name";

const exists = (name: string) =>
  withServerClient(testServerUrl(), async (c) => (await c.query("SELECT 1 FROM pg_database WHERE datname = $1", [name])).rowCount === 1);

test("the global setup's database is migrated and shared through RELAY_TEST_DATABASE_URL", async () => {
  const client = new Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  try {
    const { rows } = await client.query("SELECT count(*)::int AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL");
    expect(rows[0].n).toBeGreaterThan(0);
  } finally {
    await client.end();
  }
});

test("createTestDatabase makes a new migrated database that drop() removes, open connections or not", async () => {
  const database = await createTestDatabase({ migrate: true });
  expect(database.name).toMatch(/^relay_test_/);
  const client = new Client({ connectionString: database.url });
  await client.connect();
  client.on("error", () => undefined); // drop() ends this connection from the server side
  await expect(client.query("SELECT count(*) FROM project")).resolves.toBeDefined();

  await database.drop();

  expect(await exists(database.name)).toBe(false);
  await client.end().catch(() => undefined);
});

test("migrate: false gives an empty database", async () => {
  const database = await createTestDatabase({ migrate: false });
  try {
    const client = new Client({ connectionString: database.url });
    await client.connect();
    const { rows } = await client.query("SELECT to_regclass('_prisma_migrations') AS t");
    await client.end();
    expect(rows).toEqual([{ t: null }]);
  } finally {
    await database.drop();
  }
});

test("stale cleanup drops day-old test databases and leaves young and unknown ones", async () => {
  const old = newTestDatabaseName(Date.now() - 2 * 24 * 3600_000);
  const young = newTestDatabaseName();
  await withServerClient(testServerUrl(), async (c) => {
    await c.query(`CREATE DATABASE ${old}`);
    await c.query(`CREATE DATABASE ${young}`);
  });
  try {
    const dropped = await dropStaleTestDatabases(testServerUrl());
    expect(dropped).toContain(old);
    expect(dropped).not.toContain(young);
    expect(await exists(old)).toBe(false);
    expect(await exists(young)).toBe(true);
  } finally {
    await withServerClient(testServerUrl(), (c) => c.query(`DROP DATABASE IF EXISTS ${young}`));
  }
});

test("a test database's name tells when it was made", () => {
  const at = Date.UTC(2026, 0, 2, 3, 4, 5);
  expect(testDatabaseCreatedAt(newTestDatabaseName(at))).toEqual(new Date(at));
  expect(testDatabaseCreatedAt("relay_test_by_hand")).toBeUndefined();
});
