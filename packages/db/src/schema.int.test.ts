/**
 * The migrated database is what schema.prisma describes. Prisma's migrate cannot run here, so the
 * migrations are written by hand (prisma/migrations); this test is what catches a migration that
 * forgets a column, an index or a foreign key, or a schema change that got no migration.
 * Prisma's reading of the schema (DMMF) is compared with pg_catalog of the run's database, which
 * the jest global setup created with the project's migrate step.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { Client } from "pg";
import { resolveMigrationsDir } from "./migrate/migrations-dir";
import { readDatabaseSchema } from "./schema-check/database-schema";
import { expectedSchema, partialIndexNames, readDatamodel } from "./schema-check/expected-schema";
import type { SchemaShape } from "./schema-check/schema-shape";

const schemaPath = path.join(resolveMigrationsDir(), "..", "schema.prisma");

let expected: SchemaShape;
let actual: SchemaShape;

beforeAll(async () => {
  // packages/db cannot use @relay/testing's testDatabaseUrl() (that package depends on this one).
  const url = process.env.RELAY_TEST_DATABASE_URL;
  if (!url) throw new Error("RELAY_TEST_DATABASE_URL is not set: run through jest with the workspace jest.config.js");
  expected = expectedSchema(await readDatamodel(schemaPath), partialIndexNames(await readFile(schemaPath, "utf8")));
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    actual = await readDatabaseSchema(client);
  } finally {
    await client.end();
  }
});

const project = (schema: SchemaShape, pick: (t: SchemaShape["tables"][string]) => unknown) =>
  Object.fromEntries(Object.entries(schema.tables).map(([name, table]) => [name, pick(table)]));

test("every model has its table and no other table exists", () => {
  expect(Object.keys(actual.tables).sort()).toEqual(Object.keys(expected.tables).sort());
});

test("every enum exists with its values in order", () => {
  expect(actual.enums).toEqual(expected.enums);
});

test("every scalar field is a column of the right type, nullability and default", () => {
  expect(project(actual, (t) => t.columns)).toEqual(project(expected, (t) => t.columns));
});

test("primary keys match", () => {
  expect(project(actual, (t) => t.primaryKey)).toEqual(project(expected, (t) => t.primaryKey));
});

test("unique constraints and indexes match, names included", () => {
  expect(project(actual, (t) => t.indexes)).toEqual(project(expected, (t) => t.indexes));
});

test("foreign keys match, with their referential actions", () => {
  expect(project(actual, (t) => t.foreignKeys)).toEqual(project(expected, (t) => t.foreignKeys));
});

test("the check itself covers the schema (it found tables, columns and keys)", () => {
  expect(expected.tables.transaction?.indexes.find((i) => i.name === "transaction_open_top_up_key")?.columns).toEqual(["chain_id (partial)", "contract_address (partial)"]);
  const tables = Object.values(expected.tables);
  expect(tables.length).toBeGreaterThan(0);
  expect(tables.every((t) => Object.keys(t.columns).length > 0 && t.primaryKey !== null)).toBe(true);
  expect(tables.some((t) => t.foreignKeys.length > 0)).toBe(true);
});
