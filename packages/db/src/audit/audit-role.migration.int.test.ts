/**
 * The migrations run as a database owner that may not create roles (a managed Postgres' usual
 * owner), once relay_app exists on the server (docs/audit.md): the apps' grants come from the owner.
 */
import { randomBytes } from "node:crypto";
import { Client } from "pg";
import { createLogger } from "@relay/core";
import { ensureDatabase, withDatabase } from "../migrate/ensure-database";
import { migrate } from "../migrate/migrate";

const url = process.env.RELAY_TEST_DATABASE_URL;
if (!url) throw new Error("RELAY_TEST_DATABASE_URL is not set: run through jest with the workspace jest.config.js");

const suffix = randomBytes(4).toString("hex");
const owner = `relay_owner_test_${suffix}`;
const database = `relay_test_owner_${suffix}`;
const admin = new Client({ connectionString: withDatabase(url, "postgres") });
const ownerUrl = (() => {
  const u = new URL(withDatabase(url, database));
  u.username = owner;
  u.password = "";
  return u.toString();
})();

beforeAll(async () => {
  await admin.connect();
  await admin.query(`CREATE ROLE "${owner}" LOGIN CREATEDB NOCREATEROLE`);
});

afterAll(async () => {
  await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  await admin.query(`DROP ROLE IF EXISTS "${owner}"`);
  await admin.end();
});

test("an owner without CREATEROLE migrates, and its tables are granted to relay_app", async () => {
  await ensureDatabase(ownerUrl);
  const { applied } = await migrate({ databaseUrl: ownerUrl, logger: createLogger({ name: "test", level: "silent" }) });
  expect(applied).toContain("20261127000000_audit_log");
  const client = new Client({ connectionString: ownerUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ ok: boolean; append: boolean; rewrite: boolean }>(
      `SELECT has_table_privilege('relay_app', 'wallet', 'SELECT, INSERT, UPDATE, DELETE') AS ok,
              has_table_privilege('relay_app', 'audit_log', 'SELECT, INSERT') AS append,
              has_table_privilege('relay_app', 'audit_log', 'UPDATE') OR has_table_privilege('relay_app', 'audit_log', 'DELETE') AS rewrite`,
    );
    expect(rows[0]).toEqual({ ok: true, append: true, rewrite: false });
  } finally {
    await client.end();
  }
});
