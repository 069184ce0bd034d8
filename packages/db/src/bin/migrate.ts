/**
 * `pnpm migrate`: creates the configured database if needed and applies pending migrations.
 * Every replica may run it at start-up (see packages/db/src/migrate/migrate.ts). Exits non-zero
 * when the database cannot be brought up to date, so an orchestrator does not start the apps.
 */
import { loadMigrateConfig } from "@relay/config";
import { createLogger, toError } from "@relay/core";
// Not through ../index: that would load the Prisma client, which migrating does not need.
import { databaseName, ensureDatabase } from "../migrate/ensure-database";
import { migrate } from "../migrate/migrate";

async function main(): Promise<void> {
  const config = loadMigrateConfig();
  const logger = createLogger({ name: "migrate", level: config.logLevel });
  try {
    const database = databaseName(config.databaseUrl);
    if (await ensureDatabase(config.databaseUrl)) logger.info({ database }, "database created");
    const result = await migrate({ databaseUrl: config.databaseUrl, logger });
    logger.info(
      { database, applied: result.applied.length, upToDate: result.upToDate.length },
      result.applied.length > 0 ? "database migrated" : "database already up to date",
    );
  } catch (e) {
    logger.error({ err: toError(e) }, "migration failed");
    process.exitCode = 1;
  }
}

main().catch((e: unknown) => {
  // Only configuration errors get here, before there is a logger to write them with.
  process.stderr.write(`${toError(e).message}\n`);
  process.exitCode = 1;
});
