import { createHash, randomBytes } from "node:crypto";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client, escapeIdentifier } from "pg";
import { createLogger } from "@relay/core";
import { ensureDatabase, withDatabase } from "./ensure-database";
import { migrate } from "./migrate";
import { resolveMigrationsDir } from "./migrations-dir";

const logger = createLogger({ name: "migrate-test", level: "silent" });
const databases: string[] = [];
const tempDirs: string[] = [];

/** The run's Postgres server (packages/db cannot use @relay/testing, which depends on it). */
function serverUrl(): string {
  const url = process.env.RELAY_TEST_DATABASE_URL;
  if (!url) throw new Error("RELAY_TEST_DATABASE_URL is not set: run through jest with the workspace jest.config.js");
  return withDatabase(url, "postgres");
}

/** An empty database, made by the ensureDatabase under test; named like @relay/testing's ones. */
async function freshDatabase(): Promise<string> {
  const name = `relay_test_${Math.floor(Date.now() / 1000).toString(36)}_${randomBytes(5).toString("hex")}`;
  databases.push(name);
  const url = withDatabase(serverUrl(), name);
  await expect(ensureDatabase(url)).resolves.toBe(true);
  return url;
}

async function query<R extends object>(url: string, sql: string): Promise<R[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(sql)).rows;
  } finally {
    await client.end();
  }
}

interface HistoryRow {
  id: string;
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  logs: string | null;
  applied_steps_count: number;
}
const history = (url: string) => query<HistoryRow>(url, "SELECT * FROM _prisma_migrations ORDER BY started_at, migration_name");

/** A copy of prisma/migrations this test may change. */
async function migrationsCopy(extra: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "relay-migrations-"));
  tempDirs.push(dir);
  await cp(resolveMigrationsDir(), dir, { recursive: true });
  for (const [name, sql] of Object.entries(extra)) {
    await mkdir(path.join(dir, name));
    await writeFile(path.join(dir, name, "migration.sql"), sql);
  }
  return dir;
}

async function migrationNames(dir: string): Promise<string[]> {
  return (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort();
}

afterAll(async () => {
  const server = serverUrl();
  const client = new Client({ connectionString: server });
  await client.connect();
  for (const name of databases) await client.query(`DROP DATABASE IF EXISTS ${escapeIdentifier(name)} WITH (FORCE)`);
  await client.end();
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

test("applies every migration to a fresh database and records each the way Prisma does", async () => {
  const url = await freshDatabase();
  const names = await migrationNames(resolveMigrationsDir());

  const result = await migrate({ databaseUrl: url, logger });

  expect(result).toEqual({ applied: names, upToDate: [], unknown: [] });
  const rows = await history(url);
  expect(rows.map((r) => r.migration_name)).toEqual(names);
  for (const row of rows) {
    const script = await readFile(path.join(resolveMigrationsDir(), row.migration_name, "migration.sql"));
    expect(row.checksum).toBe(createHash("sha256").update(script).digest("hex"));
    expect(row.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(row.finished_at).toBeInstanceOf(Date);
    expect(row.rolled_back_at).toBeNull();
    expect(row.logs).toBeNull();
    expect(row.applied_steps_count).toBe(1);
  }
});

test("running it again applies nothing and writes nothing", async () => {
  const url = await freshDatabase();
  await migrate({ databaseUrl: url, logger });
  const before = await history(url);

  const again = await migrate({ databaseUrl: url, logger });

  expect(again.applied).toEqual([]);
  expect(again.upToDate).toEqual(before.map((r) => r.migration_name));
  expect(await history(url)).toEqual(before);
  await expect(ensureDatabase(url)).resolves.toBe(false);
});

test("replicas migrating at the same time apply each migration exactly once", async () => {
  const url = await freshDatabase();
  // A slow migration widens the window in which the replicas overlap.
  const dir = await migrationsCopy({
    "20990101000000_slow": "SELECT pg_sleep(0.3);\nCREATE TABLE test_slow (id INTEGER);\n",
  });
  const names = await migrationNames(dir);

  const results = await Promise.all([1, 2, 3].map(() => migrate({ databaseUrl: url, logger, migrationsDir: dir })));

  expect(results.flatMap((r) => r.applied).sort()).toEqual(names);
  expect(results.filter((r) => r.applied.length > 0)).toHaveLength(1);
  expect((await history(url)).map((r) => r.migration_name)).toEqual(names);
});

test("refuses a migration that changed after it was applied, naming it", async () => {
  const url = await freshDatabase();
  const dir = await migrationsCopy();
  await migrate({ databaseUrl: url, logger, migrationsDir: dir });
  const [first] = await migrationNames(dir);
  const file = path.join(dir, first as string, "migration.sql");
  const original = await readFile(file, "utf8");

  await writeFile(file, `${original}\nALTER TABLE project ADD COLUMN sneaky TEXT;\n`);
  await expect(migrate({ databaseUrl: url, logger, migrationsDir: dir })).rejects.toThrow(
    new RegExp(`Migration ${first} was changed after it was applied`),
  );

  // Only line endings changed (a Windows checkout): the same migration, as Prisma sees it.
  await writeFile(file, original.replace(/\n/g, "\r\n"));
  await expect(migrate({ databaseUrl: url, logger, migrationsDir: dir })).resolves.toMatchObject({ applied: [] });
});

test("a failing migration is rolled back, recorded as failed, and blocks later runs until resolved", async () => {
  const url = await freshDatabase();
  const broken = "20990101000000_broken";
  const dir = await migrationsCopy({ [broken]: "CREATE TABLE half_done (id INTEGER);\nSELECT * FROM no_such_table;\n" });

  await expect(migrate({ databaseUrl: url, logger, migrationsDir: dir })).rejects.toThrow(
    new RegExp(`Migration ${broken} failed and was rolled back`),
  );
  expect(await query(url, "SELECT to_regclass('half_done') AS t")).toEqual([{ t: null }]);
  const failed = (await history(url)).find((r) => r.migration_name === broken);
  expect(failed).toMatchObject({ finished_at: null, rolled_back_at: null, applied_steps_count: 0 });
  expect(failed?.logs).toContain("no_such_table");

  await expect(migrate({ databaseUrl: url, logger, migrationsDir: dir })).rejects.toThrow(
    new RegExp(`Migration ${broken} failed in an earlier attempt`),
  );

  // What `prisma migrate resolve --rolled-back` does, then a fixed migration goes through.
  await query(url, `UPDATE _prisma_migrations SET rolled_back_at = now() WHERE migration_name = '${broken}'`);
  await writeFile(path.join(dir, broken, "migration.sql"), "CREATE TABLE half_done (id INTEGER);\n");
  await expect(migrate({ databaseUrl: url, logger, migrationsDir: dir })).resolves.toMatchObject({ applied: [broken] });
});
