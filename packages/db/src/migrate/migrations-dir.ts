import path from "node:path";

/**
 * prisma/migrations of this repository. Resolved from this file rather than the working directory
 * so `pnpm migrate`, the tests and a container started from any directory all find the same folder.
 */
export function resolveMigrationsDir(): string {
  return path.resolve(__dirname, "../../../../prisma/migrations");
}
