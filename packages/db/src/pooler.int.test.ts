import { startPgBouncer, testDatabaseUrl, type PrivatePgBouncer } from "@relay/testing";
import { Pool } from "pg";
import { createPool } from "./client";

/**
 * Why DATABASE_POOLER=transaction exists: through PgBouncer 1.18 in transaction mode, consecutive
 * statements of one client connection run on whichever server connection is free, so a statement
 * prepared by name on one is unknown on the next.
 */
describe("createPool behind PgBouncer in transaction mode", () => {
  let bouncer: PrivatePgBouncer;
  let url: string;
  beforeAll(async () => {
    // Two server connections shared by more clients: statements of one client hop between them.
    // connect_query: the server-side replacement for the startup option (docs/operations.md).
    bouncer = await startPgBouncer({ serverUrl: testDatabaseUrl(), poolSize: 2, connectQuery: "SET enable_seqscan = off" });
    url = bouncer.through(testDatabaseUrl());
  });
  afterAll(() => bouncer.stop());

  const load = async (pool: Pool) => {
    const one = (i: number) => pool.query({ name: "pooler-probe", text: "SELECT $1::int AS n", values: [i] });
    for (let round = 0; round < 10; round++) await Promise.all(Array.from({ length: 8 }, (_, i) => one(i)));
  };

  it("named statements fail across server connections without the setting", async () => {
    // The startup options must go too, or PgBouncer refuses the connection before any statement.
    const pool = new Pool({ connectionString: url, max: 8 });
    try {
      await expect(load(pool)).rejects.toThrow(/prepared statement "pooler-probe" (does not exist|already exists)/);
    } finally {
      await pool.end();
    }
  });

  it("a pool made for direct Postgres is refused: its startup options are not PgBouncer's", async () => {
    const pool = createPool({ url, poolSize: 1 });
    try {
      await expect(pool.query("SELECT 1")).rejects.toThrow(/unsupported startup parameter: options/);
    } finally {
      await pool.end();
    }
  });

  it("pooler: transaction sends every statement unnamed and they all succeed, in and out of transactions", async () => {
    const pool = createPool({ url, poolSize: 8, pooler: "transaction" });
    try {
      await load(pool);
      expect((await pool.query("SHOW enable_seqscan")).rows).toEqual([{ enable_seqscan: "off" }]);
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const { rows } = await client.query({ name: "pooler-probe-tx", text: "SELECT $1::int AS n", values: [7] });
        await client.query("COMMIT");
        expect(rows).toEqual([{ n: 7 }]);
      } finally {
        client.release();
      }
    } finally {
      await pool.end();
    }
  });
});
