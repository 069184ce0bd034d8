import type { ClientBase } from "pg";
import { AppError, toError } from "@relay/core";

/**
 * The key Prisma's schema engine locks before it migrates a Postgres database. Taking the same key
 * means our replicas and a `prisma migrate deploy` run elsewhere wait for each other too.
 */
export const PRISMA_MIGRATE_LOCK_KEY = 72707369;

const LOCK_NOT_AVAILABLE = "55P03";

/**
 * Runs `fn` holding the session-level advisory lock on `client`. Replicas that start together
 * queue here; each sees the history the previous one left. Waiting is bounded so a stuck holder
 * turns into an error instead of a deploy that hangs for ever.
 */
export async function withAdvisoryLock<T>(
  client: ClientBase,
  options: { key: number; timeoutMs: number },
  fn: () => Promise<T>,
): Promise<T> {
  // lock_timeout also bounds advisory lock waits; it is reset at once so it does not apply to the
  // migrations themselves.
  await client.query(`SET lock_timeout = ${Math.max(1, Math.floor(options.timeoutMs))}`);
  try {
    await client.query("SELECT pg_advisory_lock($1)", [options.key]);
  } catch (e) {
    const error = toError(e);
    if ((error as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw error;
    throw new AppError("TIMEOUT", `Another migration held the migrate lock for more than ${options.timeoutMs} ms`, {
      retryable: true,
      cause: error,
    });
  } finally {
    // Best effort: on a broken connection this fails too and must not hide the real error.
    await client.query("RESET lock_timeout").catch(() => undefined);
  }
  try {
    return await fn();
  } finally {
    // A failure here must not hide fn's error; the lock goes with the session when the caller
    // closes the connection anyway.
    await client.query("SELECT pg_advisory_unlock($1)", [options.key]).catch(() => undefined);
  }
}
