import { existsSync } from "node:fs";
import path from "node:path";

/**
 * prisma/migrations of this repository. Resolved from this file rather than the working directory
 * so `pnpm migrate`, the tests and a container started from any directory all find the same folder.
 * Looked for upwards: the file runs from packages/db/src in development and from a bundle
 * (packages/db/dist, or an app's dist) in a production build, at a different depth.
 */
export function resolveMigrationsDir(from: string = __dirname): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "prisma", "migrations");
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) throw new Error(`no prisma/migrations folder in ${from} or any folder above it`);
  }
}
