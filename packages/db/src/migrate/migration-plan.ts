import { AppError } from "@relay/core";
import { checksumMatches } from "./checksum";
import type { MigrationFile } from "./migration-files";
import type { MigrationRecord } from "./migrations-table";

export interface MigrationPlan {
  /** In the order to apply them. */
  pending: MigrationFile[];
  /** Already applied, with an unchanged migration.sql. */
  applied: string[];
  /** Applied to the database but absent from the directory (e.g. an older release is starting). */
  unknown: string[];
}

/**
 * Decides what to apply from the directory and the history table, and refuses before anything is
 * applied when the history cannot be trusted. Rows with rolled_back_at set do not count, as for
 * Prisma: `prisma migrate resolve --rolled-back` is how an operator retries a failed migration.
 */
export function planMigrations(files: readonly MigrationFile[], records: readonly MigrationRecord[]): MigrationPlan {
  const live = records.filter((r) => r.rolledBackAt === null);

  const failed = live.find((r) => r.finishedAt === null);
  if (failed) {
    throw new AppError(
      "CONFLICT",
      `Migration ${failed.migrationName} failed in an earlier attempt and is not marked rolled back; ` +
        `fix the database and the migration, then run \`prisma migrate resolve --rolled-back ${failed.migrationName}\` ` +
        `(or set rolled_back_at on its row in _prisma_migrations). Error of that attempt: ${failed.logs ?? "(none recorded)"}`,
    );
  }

  const finished = new Map(live.map((r) => [r.migrationName, r]));
  for (const file of files) {
    const record = finished.get(file.name);
    if (record && !checksumMatches(file.script, record.checksum)) {
      throw new AppError(
        "CONFLICT",
        `Migration ${file.name} was changed after it was applied (checksum ${record.checksum} recorded, ` +
          `${file.checksum} now); restore the applied migration.sql and put the change in a new migration`,
      );
    }
  }

  const names = new Set(files.map((f) => f.name));
  return {
    pending: files.filter((f) => !finished.has(f.name)),
    applied: files.filter((f) => finished.has(f.name)).map((f) => f.name),
    unknown: [...finished.keys()].filter((name) => !names.has(name)),
  };
}
