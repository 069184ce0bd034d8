import { randomUUID } from "node:crypto";
import type { ClientBase } from "pg";
import { AppError, toError } from "@relay/core";
import type { MigrationFile } from "./migration-files";
import { recordApplied, recordFailed } from "./migrations-table";

/**
 * Applies one migration and its history row in one transaction: either both are there or neither
 * is, so a process killed half-way leaves a database the next start can simply migrate again.
 * A script that fails is rolled back and then recorded as a failed attempt, which is how Prisma
 * reports it (`prisma migrate status`) and what makes the next start refuse instead of retrying a
 * broken migration on every replica.
 */
export async function applyMigration(client: ClientBase, migration: MigrationFile): Promise<void> {
  const row = { id: randomUUID(), name: migration.name, checksum: migration.checksum };
  await client.query("BEGIN");
  try {
    // No parameters: pg sends the whole file as one simple query, so it may hold many statements.
    await client.query(migration.script.toString("utf8"));
    await recordApplied(client, row);
    await client.query("COMMIT");
  } catch (e) {
    const error = toError(e);
    await client.query("ROLLBACK").catch(() => undefined);
    await recordFailed(client, { ...row, logs: describe(error) }).catch(() => undefined);
    throw new AppError("INTERNAL", `Migration ${migration.name} failed and was rolled back: ${error.message}`, {
      cause: error,
    });
  }
}

/** What Prisma would show in `logs`: the message plus Postgres' own pointers to the cause. */
function describe(error: Error): string {
  const pg = error as Error & { code?: string; detail?: string; hint?: string; position?: string };
  const parts = [error.message];
  if (pg.code) parts.push(`SQLSTATE ${pg.code}`);
  if (pg.detail) parts.push(`detail: ${pg.detail}`);
  if (pg.hint) parts.push(`hint: ${pg.hint}`);
  if (pg.position) parts.push(`at character ${pg.position}`);
  return parts.join("\n");
}
