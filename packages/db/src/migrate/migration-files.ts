import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { AppError, toError } from "@relay/core";
import { migrationChecksum } from "./checksum";

/** One folder of prisma/migrations: `<timestamp>_<name>/migration.sql`. */
export interface MigrationFile {
  /** The folder name; Prisma records it as `migration_name`. */
  name: string;
  /** The exact bytes of migration.sql: the checksum is taken over these, not over decoded text. */
  script: Buffer;
  checksum: string;
}

/**
 * The migrations in the order Prisma applies them: folder names sorted by their bytes (the
 * timestamp prefix makes that chronological). A folder without migration.sql is an error, as it is
 * for Prisma, rather than a migration silently skipped.
 */
export async function readMigrations(dir: string): Promise<MigrationFile[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((e: unknown) => {
    throw new AppError("CONFIG", `Cannot read the migrations directory ${dir}`, { cause: toError(e) });
  });
  await checkLockFile(dir);
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return Promise.all(
    names.map(async (name) => {
      const file = path.join(dir, name, "migration.sql");
      const script = await readFile(file).catch((e: unknown) => {
        throw new AppError("CONFIG", `Migration ${name} has no readable migration.sql (${file})`, { cause: toError(e) });
      });
      return { name, script, checksum: migrationChecksum(script) };
    }),
  );
}

/** Prisma refuses migrations written for another database; so do we. A missing lock file is allowed. */
async function checkLockFile(dir: string): Promise<void> {
  const text = await readFile(path.join(dir, "migration_lock.toml"), "utf8").catch(() => undefined);
  if (text === undefined) return;
  const provider = /^\s*provider\s*=\s*"([^"]*)"/m.exec(text)?.[1];
  if (provider !== "postgresql") {
    throw new AppError("CONFIG", `${dir}/migration_lock.toml is for provider "${provider}", not "postgresql"`);
  }
}
