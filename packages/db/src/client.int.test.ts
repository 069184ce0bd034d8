import { testDatabaseUrl } from "@relay/testing";
import { createPool } from "./client";

describe("createPool", () => {
  it("gives up on a query whose answer takes longer than queryTimeoutMs", async () => {
    const pool = createPool({ url: testDatabaseUrl(), poolSize: 1, queryTimeoutMs: 200 });
    try {
      await expect(pool.query("SELECT pg_sleep(3)")).rejects.toThrow(/Query read timeout/);
    } finally {
      await pool.end();
    }
  });

  it("waits for a slow query without queryTimeoutMs", async () => {
    const pool = createPool({ url: testDatabaseUrl(), poolSize: 1 });
    try {
      await expect(pool.query("SELECT pg_sleep(0.3) AS slept")).resolves.toMatchObject({ rowCount: 1 });
    } finally {
      await pool.end();
    }
  });
});
