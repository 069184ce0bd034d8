/**
 * The audit log is append-only for the apps (docs/audit.md): their role, relay_app, may read and
 * add entries on it and do anything to every other table; no role, the owner included, can
 * change, remove or truncate an entry while the migration's triggers stand.
 */
import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { Client } from "pg";
import { createLogger } from "@relay/core";
import { createPool } from "../client";
import { readAuditPrivileges, warnIfAuditWritable } from "./audit-privileges";

const url = process.env.RELAY_TEST_DATABASE_URL;
if (!url) throw new Error("RELAY_TEST_DATABASE_URL is not set: run through jest with the workspace jest.config.js");

/** A LOGIN role of this test's own, a member of relay_app, as an operator gives the apps. */
const member = `relay_audit_test_${randomBytes(4).toString("hex")}`;
const memberUrl = (() => {
  const u = new URL(url);
  u.username = member;
  u.password = "";
  return u.toString();
})();

const owner = new Client({ connectionString: url });
const app = new Client({ connectionString: memberUrl });

const entry = (action: string) => ({
  text: `INSERT INTO audit_log (actor_type, actor_id, action, details) VALUES ('operator', 'privileges-test', $1, '{}') RETURNING id::text AS id`,
  values: [action],
});

beforeAll(async () => {
  await owner.connect();
  await owner.query(`CREATE ROLE "${member}" LOGIN IN ROLE relay_app`);
  await app.connect();
});

afterAll(async () => {
  await app.end();
  await owner.query(`DROP ROLE IF EXISTS "${member}"`);
  await owner.end();
});

test("every table of the schema is granted to relay_app, the audit log for SELECT and INSERT only", async () => {
  const { rows } = await owner.query<{ table: string; select: boolean; insert: boolean; update: boolean; delete: boolean; truncate: boolean }>(
    `SELECT c.relname AS table,
            has_table_privilege('relay_app', c.oid, 'SELECT') AS select, has_table_privilege('relay_app', c.oid, 'INSERT') AS insert,
            has_table_privilege('relay_app', c.oid, 'UPDATE') AS update, has_table_privilege('relay_app', c.oid, 'DELETE') AS delete,
            has_table_privilege('relay_app', c.oid, 'TRUNCATE') AS truncate
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND c.relname <> '_prisma_migrations'`,
  );
  expect(rows.length).toBeGreaterThan(10);
  for (const row of rows) {
    const expected = row.table === "audit_log" ? { select: true, insert: true, update: false, delete: false } : { select: true, insert: true, update: true, delete: true };
    expect({ table: row.table, select: row.select, insert: row.insert, update: row.update, delete: row.delete }).toEqual({ table: row.table, ...expected });
    expect({ table: row.table, truncate: row.truncate }).toEqual({ table: row.table, truncate: false });
  }
  const sequences = await owner.query<{ sequence: string; usage: boolean }>(
    `SELECT c.relname AS sequence, has_sequence_privilege('relay_app', c.oid, 'USAGE') AS usage
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'S'`,
  );
  expect(sequences.rows.length).toBeGreaterThan(0);
  for (const row of sequences.rows) expect(row).toEqual({ sequence: row.sequence, usage: true });
});

test("a table a later migration creates is granted to relay_app too", async () => {
  const table = `audit_grant_probe_${randomBytes(4).toString("hex")}`;
  await owner.query(`CREATE TABLE "${table}" (id bigserial PRIMARY KEY)`);
  try {
    const { rows } = await owner.query<{ all: boolean }>(`SELECT has_table_privilege('relay_app', $1, 'SELECT, INSERT, UPDATE, DELETE') AS all`, [table]);
    expect(rows[0]!.all).toBe(true);
  } finally {
    await owner.query(`DROP TABLE "${table}"`);
  }
});

describe("as a LOGIN member of relay_app", () => {
  test("adds and reads entries", async () => {
    const { rows } = await app.query<{ id: string }>(entry("project.created"));
    const read = await app.query(`SELECT action FROM audit_log WHERE id = $1`, [rows[0]!.id]);
    expect(read.rows).toEqual([{ action: "project.created" }]);
  });

  test.each([
    ["UPDATE", `UPDATE audit_log SET actor_id = 'someone else' WHERE id = $1`],
    ["DELETE", `DELETE FROM audit_log WHERE id = $1`],
  ])("cannot %s an entry: permission denied", async (_what, statement) => {
    const { rows } = await app.query<{ id: string }>(entry("wallet.created"));
    await expect(app.query(statement, [rows[0]!.id])).rejects.toMatchObject({ code: "42501", message: expect.stringMatching(/permission denied/) });
    const read = await owner.query(`SELECT actor_id FROM audit_log WHERE id = $1`, [rows[0]!.id]);
    expect(read.rows).toEqual([{ actor_id: "privileges-test" }]);
  });

  test("cannot TRUNCATE the audit log: permission denied", async () => {
    await expect(app.query(`TRUNCATE audit_log`)).rejects.toMatchObject({ code: "42501", message: expect.stringMatching(/permission denied/) });
  });

  test("changes the other tables as the apps do", async () => {
    const name = `audit-test-${randomBytes(4).toString("hex")}`;
    await app.query(`INSERT INTO project (name) VALUES ($1)`, [name]);
    await expect(app.query(`UPDATE project SET name = $1 WHERE name = $1`, [name])).resolves.toMatchObject({ rowCount: 1 });
  });

  test("is not warned about at start", async () => {
    const pool = createPool({ url: memberUrl, poolSize: 1 });
    try {
      expect(await readAuditPrivileges(pool)).toEqual({ role: member, canRewrite: false });
      const lines = await warningsOf(pool);
      expect(lines).toEqual([]);
    } finally {
      await pool.end();
    }
  });
});

describe("as the owner", () => {
  test.each([
    ["UPDATE", `UPDATE audit_log SET actor_id = 'someone else' WHERE id = $1`],
    ["DELETE", `DELETE FROM audit_log WHERE id = $1`],
  ])("cannot %s an entry: the trigger refuses it", async (what, statement) => {
    const { rows } = await owner.query<{ id: string }>(entry("api_key.created"));
    await expect(owner.query(statement, [rows[0]!.id])).rejects.toMatchObject({ message: `audit_log is append-only: ${what} refused` });
    const read = await owner.query(`SELECT actor_id FROM audit_log WHERE id = $1`, [rows[0]!.id]);
    expect(read.rows).toEqual([{ actor_id: "privileges-test" }]);
  });

  test("cannot TRUNCATE the audit log: the trigger refuses it", async () => {
    await expect(owner.query(`TRUNCATE audit_log`)).rejects.toMatchObject({ message: "audit_log is append-only: TRUNCATE refused" });
  });

  test("is warned about at start, by role name", async () => {
    const pool = createPool({ url, poolSize: 1 });
    try {
      const { role } = await readAuditPrivileges(pool);
      const lines = await warningsOf(pool);
      expect(lines).toEqual([expect.objectContaining({ level: 40, role, msg: expect.stringContaining("member of relay_app") })]);
    } finally {
      await pool.end();
    }
  });
});

async function warningsOf(pool: ReturnType<typeof createPool>): Promise<Record<string, unknown>[]> {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    name: "test",
    level: "warn",
    destination: new Writable({
      write(chunk, _enc, done) {
        lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
        done();
      },
    }),
  });
  await warnIfAuditWritable(pool, logger);
  return lines;
}
