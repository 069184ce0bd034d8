import { randomUUID } from "node:crypto";
import { connect, createServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
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

  it("after a query times out on a connection whose server went silent, discards it and answers the next query on a new one", async () => {
    // A TCP relay to Postgres whose open connections can be made to swallow everything (a network
    // black hole, or a server host lost after it took the query); new connections still pass.
    const target = new URL(testDatabaseUrl());
    const open: { client: Socket; server: Socket }[] = [];
    const sockets: Socket[] = [];
    const relay = createServer((client) => {
      const server = connect(Number(target.port || 5432), target.hostname);
      client.pipe(server).pipe(client);
      client.on("error", () => undefined);
      server.on("error", () => undefined);
      open.push({ client, server });
      sockets.push(client, server);
    });
    await new Promise<void>((r) => relay.listen(0, "127.0.0.1", r));
    const url = new URL(testDatabaseUrl());
    url.hostname = "127.0.0.1";
    url.port = String((relay.address() as AddressInfo).port);
    const pool = createPool({ url: url.toString(), poolSize: 1, queryTimeoutMs: 300 });
    const pid = async () => (await pool.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
    try {
      const first = await pid();
      for (const { client, server } of open.splice(0)) {
        client.unpipe(server);
        server.unpipe(client);
        client.on("data", () => undefined); // read and drop: the query is taken, no answer comes
      }
      await expect(pid()).rejects.toThrow(/Query read timeout/);
      // The silent connection was dropped: a new one answers (poolSize 1, so with the old one
      // kept the query would wait behind it and time out again).
      const second = await pid();
      expect(second).not.toBe(first);
    } finally {
      for (const socket of sockets) socket.destroy();
      await pool.end();
      await new Promise((r) => relay.close(r));
    }
  });

  it("keeps index plans for a statement prepared while its table was empty, after the table grew (no statistics)", async () => {
    const pool = createPool({ url: testDatabaseUrl(), poolSize: 1 });
    const table = `plan_${randomUUID().replaceAll("-", "")}`;
    const client = await pool.connect();
    try {
      await client.query(`CREATE TABLE ${table} (id uuid PRIMARY KEY, note text)`);
      await client.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
      // A lookup of many keys, as the hot statements make them, on the generic plan the plan cache
      // settles on for a named statement: made once, here while the table is empty.
      await client.query("SET plan_cache_mode = force_generic_plan");
      await client.query(`PREPARE lookup(uuid[]) AS SELECT t.* FROM unnest($1::uuid[]) AS k(id) JOIN ${table} t ON t.id = k.id`);
      await client.query(`EXECUTE lookup(ARRAY[gen_random_uuid()])`);
      await client.query(`INSERT INTO ${table} SELECT gen_random_uuid(), repeat('x', 100) FROM generate_series(1, 20000)`);

      const plan = (await client.query<{ "QUERY PLAN": string }>(`EXPLAIN EXECUTE lookup(ARRAY[gen_random_uuid()])`)).rows.map((r) => r["QUERY PLAN"]).join("\n");
      expect(plan).not.toMatch(new RegExp(`Seq Scan on ${table}`));
      expect(plan).toMatch(new RegExp(`Index (Only )?Scan using ${table}_pkey`));
    } finally {
      await client.query(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
      client.release(true); // not back to the pool with the plan cache setting changed
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
