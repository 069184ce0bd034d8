import { randomBytes } from "node:crypto";
import { createPool } from "@relay/db";

/**
 * The login role the quick start runs its apps as: a member of relay_app, the role the migration
 * grants (docs/audit.md, "The apps' database role"), so every app proves on each start that those
 * grants are enough, and none can rewrite the audit log. Created through the owner's connection if
 * missing, one per database (`<database>_apps`) so that quick starts on other databases of the same
 * server keep theirs. When the owner's URL carries a password, the role gets a new random one on
 * each start (the apps are started afresh with it). Returns the apps' database URL.
 */
/**
 * `<database>_apps`: never `relay_app` itself (the default database is `relay`, and a role cannot
 * be granted to itself), letters, digits and underscores only, within Postgres' 63 bytes.
 */
export const appRoleName = (database: string): string => `${database.replace(/[^a-zA-Z0-9_]/g, "_").slice(0, 58)}_apps`;

export async function ensureAppRole(ownerUrl: string): Promise<string> {
  const url = new URL(ownerUrl);
  const database = decodeURIComponent(url.pathname.slice(1)) || "relay";
  const role = appRoleName(database);
  const password = url.password ? randomBytes(24).toString("hex") : undefined;
  // The name holds letters, digits and underscores only, the password hex digits only: both are
  // safe to quote as they are.
  const pool = createPool({ url: ownerUrl, poolSize: 1 });
  try {
    // Another quick start on the same database may create it at the same moment.
    await pool.query(`DO $$ BEGIN
      CREATE ROLE "${role}" LOGIN IN ROLE relay_app;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
    END $$`);
    await pool.query(`GRANT relay_app TO "${role}"`);
    if (password) await pool.query(`ALTER ROLE "${role}" PASSWORD '${password}'`);
  } finally {
    await pool.end();
  }
  url.username = role;
  url.password = password ?? "";
  return url.toString();
}
