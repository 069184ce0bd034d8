import { randomBytes } from "node:crypto";

/**
 * Test databases are named `relay_test_<creation time, base-36 seconds>_<random>`: Postgres keeps
 * no creation time, so the name carries it and a later run can tell a day-old leftover of a
 * crashed run from the live database of a run going on in parallel.
 */
const PATTERN = /^relay_test_([0-9a-z]+)_[0-9a-f]+$/;

export const TEST_DATABASE_LIKE = "relay\\_test\\_%";

export function newTestDatabaseName(now = Date.now()): string {
  return `relay_test_${Math.floor(now / 1000).toString(36)}_${randomBytes(5).toString("hex")}`;
}

/** When a test database was created, or undefined for a name this scheme did not make. */
export function testDatabaseCreatedAt(name: string): Date | undefined {
  const match = PATTERN.exec(name);
  if (!match) return undefined;
  const seconds = parseInt(match[1] as string, 36);
  return Number.isFinite(seconds) ? new Date(seconds * 1000) : undefined;
}
