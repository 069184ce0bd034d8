import type { PoolClient } from "pg";
import type { SqlPool } from "./client";

/**
 * Runs `work` on one connection of `pool` between BEGIN and COMMIT: its statements commit together
 * or not at all (ROLLBACK when `work` throws, and then its error). A connection whose transaction
 * failed is not given back to the pool, so a broken session is never reused.
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
