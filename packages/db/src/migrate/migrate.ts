import { Client } from "pg";
import { AppError, toError, type Logger } from "@relay/core";
import { PRISMA_MIGRATE_LOCK_KEY, withAdvisoryLock } from "./advisory-lock";
import { applyMigration } from "./apply-migration";
import { readMigrations } from "./migration-files";
import { planMigrations } from "./migration-plan";
import { ensureMigrationsTable, readMigrationRecords } from "./migrations-table";
import { resolveMigrationsDir } from "./migrations-dir";

export interface MigrateOptions {
  databaseUrl: string;
  logger: Logger;
  /** Defaults to this repository's prisma/migrations. */
  migrationsDir?: string;
  /** How long to wait for another replica's migration before giving up (default 5 minutes). */
  lockTimeoutMs?: number;
}

export interface MigrateResult {
  /** Applied by this call, in order. */
  applied: string[];
  /** Found already applied. */
  upToDate: string[];
  /** In the database's history but not in the directory. */
  unknown: string[];
}

/**
 * Brings the database up to the migrations directory, the way `prisma migrate deploy` would, on
 * one dedicated connection (the advisory lock belongs to its session). Safe to run from every
 * replica at start-up: the lock serialises them and each migration is applied exactly once.
 */
export async function migrate(options: MigrateOptions): Promise<MigrateResult> {
  const { logger } = options;
  // Read the files first: a broken checkout should fail before anything touches the database.
  const files = await readMigrations(options.migrationsDir ?? resolveMigrationsDir());
  const client = new Client({ connectionString: options.databaseUrl, application_name: "relay-migrate" });
  await client.connect().catch((e: unknown) => {
    throw new AppError("UNAVAILABLE", "Cannot connect to the database to migrate it", {
      retryable: true,
      cause: toError(e),
    });
  });
  // A dropped connection emits 'error' on the client; without a listener it would crash the process.
  client.on("error", (e) => logger.error({ err: e }, "migrate connection lost"));
  try {
    const lock = { key: PRISMA_MIGRATE_LOCK_KEY, timeoutMs: options.lockTimeoutMs ?? 5 * 60_000 };
    return await withAdvisoryLock(client, lock, async () => {
      await ensureMigrationsTable(client);
      const plan = planMigrations(files, await readMigrationRecords(client));
      if (plan.unknown.length > 0) {
        logger.warn({ migrations: plan.unknown }, "database has migrations that are not in the migrations directory");
      }
      for (const migration of plan.pending) {
        const startedAt = Date.now();
        await applyMigration(client, migration);
        logger.info(
          { migration: migration.name, checksum: migration.checksum, durationMs: Date.now() - startedAt },
          "migration applied",
        );
      }
      return { applied: plan.pending.map((m) => m.name), upToDate: plan.applied, unknown: plan.unknown };
    });
  } finally {
    await client.end().catch(() => undefined);
  }
}
