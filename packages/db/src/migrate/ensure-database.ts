import { Client, escapeIdentifier } from "pg";
import { AppError, toError } from "@relay/core";

const INVALID_CATALOG_NAME = "3D000";
const DUPLICATE_DATABASE = "42P04";
const UNIQUE_VIOLATION = "23505";

/**
 * Creates the database named in `url` if it does not exist yet; returns whether it did. It first
 * connects to the database itself, so a deployment whose role may not create databases (or read
 * `postgres`) is fine as long as the database is there. Replicas racing to create it are fine too.
 */
export async function ensureDatabase(url: string): Promise<boolean> {
  const name = databaseName(url);
  const target = new Client({ connectionString: url });
  try {
    await target.connect();
    return false;
  } catch (e) {
    if (codeOf(e) !== INVALID_CATALOG_NAME) throw unavailable(`Cannot connect to database ${name}`, e);
  } finally {
    await target.end().catch(() => undefined);
  }

  const maintenance = new Client({ connectionString: withDatabase(url, "postgres") });
  try {
    await maintenance.connect();
    await maintenance.query(`CREATE DATABASE ${escapeIdentifier(name)}`);
    return true;
  } catch (e) {
    // Another replica created it between our two connections (Postgres reports either code).
    if (codeOf(e) === DUPLICATE_DATABASE || codeOf(e) === UNIQUE_VIOLATION) return false;
    throw unavailable(`Cannot create database ${name} (connected to the maintenance database "postgres")`, e);
  } finally {
    await maintenance.end().catch(() => undefined);
  }
}

/** The database part of a postgresql:// URL. */
export function databaseName(url: string): string {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ""));
  if (!name) throw new AppError("CONFIG", "The database URL names no database");
  return name;
}

/** The same server, credentials and options, another database. */
export function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(name)}`;
  return parsed.toString();
}

const codeOf = (e: unknown): string | undefined => (toError(e) as { code?: string }).code;

const unavailable = (message: string, e: unknown) =>
  new AppError("UNAVAILABLE", message, { retryable: true, cause: toError(e) });
