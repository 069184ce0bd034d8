import type { PoolClient } from "pg";
import type { SqlPool } from "./client";

/**
 * Runs `work` on one connection of `pool` between BEGIN and COMMIT: its statements commit together
 * or not at all. When `work` (or the COMMIT) throws, the connection is closed instead of given back
 * to the pool, which rolls the transaction back and never reuses a broken session; the error is
 * rethrown.
 */
export async function inTransaction<T>(pool: SqlPool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (e) {
    broken = e as Error;
    throw e;
  } finally {
    client.release(broken);
  }
}
