/**
 * What DATABASE_POOLER=transaction costs: the same statement load (a transaction's INSERT, with
 * its status change and outbox event, then two reads of it by id, as the gateway and tx-worker do)
 * run three ways for `--seconds` each:
 *   direct, named       the default: Postgres itself, statements prepared once per connection
 *   direct, unnamed     Postgres itself with the pooler setting: every statement parsed and planned
 *   pgbouncer, unnamed  through PgBouncer 1.18 in transaction mode with the setting
 *
 *   pnpm bench:pooler [--seconds 20] [--concurrency 16]
 *
 * Prints the rounds per second of each and their ratios to the first.
 */
import { randomUUID } from "node:crypto";
import { createDatabase, createPool, createTransactionRepository, type DatabasePooler } from "@relay/db";
import { createProjectFixture, createTestDatabase, startPgBouncer, testKek } from "@relay/testing";
import { line, numberArg } from "./lib/args";

const seconds = numberArg("seconds", 20);
const concurrency = numberArg("concurrency", 16);

async function main() {
  const database = await createTestDatabase({ migrate: true });
  const setupDb = createDatabase({ url: database.url, poolSize: 2 });
  const chainId = 31_337n + BigInt(Math.floor(Math.random() * 1000));
  await setupDb.chain.create({ data: { chainId, name: `bench-pooler-${chainId}`, rpcUrls: ["http://127.0.0.1:1"] } });
  const project = await createProjectFixture(setupDb, testKek(), { wallets: 1 });
  await setupDb.$disconnect();
  // As operators would: the startup option's replacement made by the pooler for its connections.
  const bouncer = await startPgBouncer({ serverUrl: database.url, poolSize: concurrency / 2, connectQuery: "SET enable_seqscan = off" });

  const run = async (url: string, pooler: DatabasePooler) => {
    const pool = createPool({ url, poolSize: concurrency, pooler });
    const db = createDatabase({ pool });
    const repository = createTransactionRepository({ sql: pool, db });
    const round = async () => {
      const created = await repository.create({
        projectId: project.projectId,
        id: randomUUID(),
        chainId,
        contractAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
        functionSignature: "function setValue(uint256 value)",
        args: { value: "42" },
        calldata: Uint8Array.from([0x55, 0x24, 0x10, 0x77, 0x2a]),
      });
      if (!created.created) throw new Error("the bench's transaction was not created");
      await repository.findById(project.projectId, created.id);
      await repository.findById(project.projectId, created.id);
    };
    for (let i = 0; i < concurrency; i++) await round(); // warm the connections
    let rounds = 0;
    const end = Date.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (Date.now() < end) {
          await round();
          rounds++;
        }
      }),
    );
    await db.$disconnect();
    if (!pool.ended) await pool.end();
    return rounds / seconds;
  };

  const namedDirect = await run(database.url, "none");
  const unnamedDirect = await run(database.url, "transaction");
  const unnamedPooled = await run(bouncer.through(database.url), "transaction");
  await bouncer.stop();
  await database.drop();

  process.stdout.write("\n");
  line("settings", `${seconds} s each, ${concurrency} rounds at once (INSERT + 2 reads), PgBouncer with ${concurrency / 2} server connections`);
  line("direct, named statements", `${namedDirect.toFixed(0)} rounds/s`);
  line("direct, unnamed (the pooler setting)", `${unnamedDirect.toFixed(0)} rounds/s (${(unnamedDirect / namedDirect).toFixed(2)} × named)`);
  line("pgbouncer, unnamed", `${unnamedPooled.toFixed(0)} rounds/s (${(unnamedPooled / namedDirect).toFixed(2)} × named)`);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
