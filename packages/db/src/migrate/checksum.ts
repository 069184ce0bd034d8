import { createHash } from "node:crypto";

/** Prisma's checksum of a migration: SHA-256 hex of the migration.sql bytes. */
export const migrationChecksum = (script: Buffer): string => createHash("sha256").update(script).digest("hex");

/**
 * Whether a migration file still matches the checksum recorded when it was applied. Like Prisma,
 * a file whose only change is CRLF vs LF line endings (a Windows checkout) still matches, so the
 * same commit is accepted from any machine.
 */
export function checksumMatches(script: Buffer, recorded: string): boolean {
  if (migrationChecksum(script) === recorded) return true;
  const text = script.toString("utf8");
  const lf = text.replace(/\r\n/g, "\n");
  const crlf = lf.replace(/\n/g, "\r\n");
  return [lf, crlf].some((variant) => migrationChecksum(Buffer.from(variant, "utf8")) === recorded);
}
