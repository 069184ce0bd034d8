import type { ClientBase } from "pg";

/**
 * Prisma's own DDL for its history table (checked against the schema engine's), so that
 * `prisma migrate status/deploy` read our records as theirs. IF NOT EXISTS because the table may
 * already exist, created by Prisma or by an earlier run.
 */
const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

/** One row of `_prisma_migrations`: one attempt to apply one migration. */
export interface MigrationRecord {
  id: string;
  migrationName: string;
  checksum: string;
  finishedAt: Date | null;
  rolledBackAt: Date | null;
  logs: string | null;
}

export async function ensureMigrationsTable(client: ClientBase): Promise<void> {
  await client.query(CREATE_TABLE);
}

export async function readMigrationRecords(client: ClientBase): Promise<MigrationRecord[]> {
  const { rows } = await client.query<MigrationRecord>(
    `SELECT id, migration_name AS "migrationName", checksum, finished_at AS "finishedAt",
            rolled_back_at AS "rolledBackAt", logs
       FROM "_prisma_migrations" ORDER BY started_at, migration_name`,
  );
  return rows;
}

/**
 * A successful attempt, written inside the migration's own transaction. Prisma counts steps;
 * on Postgres a whole migration.sql is one step, so a finished migration has 1.
 */
export async function recordApplied(
  client: ClientBase,
  migration: { id: string; name: string; checksum: string },
): Promise<void> {
  await client.query(
    `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
     VALUES ($1, $2, $3, now(), clock_timestamp(), 1)`,
    [migration.id, migration.checksum, migration.name],
  );
}

/**
 * A failed attempt as Prisma leaves one: finished_at and rolled_back_at NULL, the error in logs.
 * `prisma migrate status` then reports it and every later migrate refuses until someone resolves it.
 */
export async function recordFailed(
  client: ClientBase,
  migration: { id: string; name: string; checksum: string; logs: string },
): Promise<void> {
  await client.query(
    `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, logs, applied_steps_count)
     VALUES ($1, $2, $3, $4, 0)`,
    [migration.id, migration.checksum, migration.name, migration.logs],
  );
}
