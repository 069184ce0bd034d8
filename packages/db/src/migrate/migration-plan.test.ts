import { migrationChecksum } from "./checksum";
import type { MigrationFile } from "./migration-files";
import { planMigrations } from "./migration-plan";
import type { MigrationRecord } from "./migrations-table";

const file = (name: string, sql = `-- ${name}\n`): MigrationFile => {
  const script = Buffer.from(sql);
  return { name, script, checksum: migrationChecksum(script) };
};

const record = (f: MigrationFile, fields: Partial<MigrationRecord> = {}): MigrationRecord => ({
  id: `id-${f.name}`,
  migrationName: f.name,
  checksum: f.checksum,
  finishedAt: new Date(),
  rolledBackAt: null,
  logs: null,
  ...fields,
});

const a = file("20260101000000_a");
const b = file("20260102000000_b");

test("everything is pending on an empty history", () => {
  expect(planMigrations([a, b], [])).toEqual({ pending: [a, b], applied: [], unknown: [] });
});

test("applied migrations are skipped; ones only in the database are reported", () => {
  const gone = file("20250101000000_gone");
  expect(planMigrations([a, b], [record(a), record(gone)])).toEqual({
    pending: [b],
    applied: [a.name],
    unknown: [gone.name],
  });
});

test("a rolled-back attempt does not count, so the migration is applied again", () => {
  const rolledBack = record(a, { finishedAt: null, rolledBackAt: new Date(), logs: "boom" });
  expect(planMigrations([a], [rolledBack]).pending).toEqual([a]);
});

test("a failed attempt stops everything, naming the migration and its error", () => {
  const failed = record(b, { finishedAt: null, logs: "relation x does not exist" });
  expect(() => planMigrations([a, b], [record(a), failed])).toThrow(
    /Migration 20260102000000_b failed in an earlier attempt.*relation x does not exist/,
  );
});

test("a changed migration is refused, but not one whose line endings alone changed", () => {
  const applied = record(a);
  expect(() => planMigrations([file(a.name, "-- changed\n")], [applied])).toThrow(
    /Migration 20260101000000_a was changed after it was applied/,
  );
  expect(planMigrations([file(a.name, `-- ${a.name}\r\n`)], [applied]).applied).toEqual([a.name]);
});
