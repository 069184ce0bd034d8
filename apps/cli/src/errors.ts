import { AppError, isAppError, toError } from "@relay/core";

/**
 * Prisma reports a unique-constraint violation as code P2002. The database decides between two
 * operators creating the same name or address at once; the CLI only words the outcome.
 */
export const isUniqueViolation = (e: unknown): boolean =>
  typeof e === "object" && e !== null && (e as { code?: unknown }).code === "P2002";

const CONNECTION_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "ETIMEDOUT", "EHOSTUNREACH", "P1001", "P1017"]);

function isConnectionError(e: Error): boolean {
  for (let cur: unknown = e; cur instanceof Error; cur = cur.cause) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === "string" && CONNECTION_CODES.has(code)) return true;
    if (/ECONNREFUSED|Can't reach database server|connection terminated/i.test(cur.message)) return true;
    if (cur instanceof AggregateError && cur.errors.some((inner) => inner instanceof Error && isConnectionError(inner))) return true;
  }
  return false;
}

/** Prisma's codes for a database that is not there or not migrated, worded as what to do. */
const DATABASE_ADVICE: Record<string, string> = {
  P1000: "Postgres refused the credentials in DATABASE_URL",
  P1003: "The database named in DATABASE_URL does not exist: create it, then run `npm run migrate`",
  P2021: "The database has no relay tables: run `npm run migrate` against DATABASE_URL",
  P2022: "The database schema is older than this CLI: run `npm run migrate` against DATABASE_URL",
};

/**
 * The one line an operator reads when a command fails. AppErrors are written for them already;
 * anything else is reduced to one line, and never includes DATABASE_URL (it may hold a
 * password).
 */
export function describeFailure(e: unknown): string {
  const error = toError(e);
  if (isAppError(error)) return error.message;
  if (isConnectionError(error)) {
    return "Cannot connect to Postgres: check that it is running and that DATABASE_URL points at it";
  }
  const code = (error as { code?: unknown }).code;
  const advice = typeof code === "string" ? DATABASE_ADVICE[code] : undefined;
  if (advice) return advice;
  // Prisma puts a source excerpt first and the actual reason on the last line.
  const lines = error.message.split("\n").map((line) => line.trim()).filter(Boolean);
  const reason = (error.name.startsWith("PrismaClient") ? lines.at(-1) : lines[0]) ?? error.name;
  return `Unexpected error: ${reason} (set LOG_LEVEL=debug for details)`;
}

export const usageError = (message: string) => new AppError("BAD_REQUEST", message);
