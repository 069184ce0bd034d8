/**
 * What the relay costs when nothing happens: the gateway and every worker running, a chain
 * configured and followed (anvil mining a block every second), one transaction sent and confirmed
 * before the window so that every schedule and follower is running — then no traffic for
 * `--seconds`. Beside it, in the same window, a baseline: a bare Node process with an idle event
 * loop, the floor any process costs.
 *
 *   pnpm bench:idle [--seconds 60] [--settle 10] [--block-time 1]
 *
 * BENCH_APPS=built runs the bundles (`pnpm build` first). Prints CPU per process as % of one
 * core, the relay's total (gateway, workers, their Postgres backends, Redis) against the target
 * of 2 % of one core, and anvil's apart (the chain, not the relay).
 */
import { spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { createDatabase, createPool } from "@relay/db";
import { createProjectFixture, createTestDatabase, deployRecorder, startAnvil, testQueuePrefix } from "@relay/testing";
import { line, numberArg } from "./lib/args";
import { cpuMeter } from "./lib/cpu";
import { startApp, stopApp, waitForHttp } from "./lib/processes";
import { deleteQueueKeys, freePort, fund, postgresBackendsOf, registerChain } from "./lib/relay";

const seconds = numberArg("seconds", 60);
const settle = numberArg("settle", 10);
const blockTime = numberArg("block-time", 1);
const TARGET = 0.02; // of one core

async function main() {
  const anvil = await startAnvil({ chainId: 33_800 + Math.floor(Math.random() * 90), blockTime });
  const recorder = await deployRecorder(anvil.rpcUrl);
  recorder.provider.destroy();
  const database = await createTestDatabase({ migrate: true });
  const prefix = testQueuePrefix("bench-idle");
  const kek = randomBytes(32);
  const db = createDatabase({ url: database.url });
  await registerChain(db, anvil, blockTime * 1000);
  const project = await createProjectFixture(db, { activeKeyId: "bench", keys: new Map([["bench", kek]]) }, { wallets: 1 });
  await db.$disconnect();
  await fund(anvil, project.wallets.map((w) => w.address));

  const port = await freePort();
  const common = { DATABASE_URL: database.url, QUEUE_PREFIX: prefix };
  const keys = { KEY_ENCRYPTION_KEY: kek.toString("base64"), KEY_ENCRYPTION_KEY_ID: "bench" };
  const apps = {
    gateway: startApp("apps/gateway/src/main.ts", { ...common, PORT: String(port) }),
    "signing-worker": startApp("apps/signing-worker/src/main.ts", { ...common, ...keys, METRICS_PORT: "0" }),
    "tx-worker": startApp("apps/tx-worker/src/main.ts", { ...common, ...keys, METRICS_PORT: "0" }),
    "webhook-worker": startApp("apps/webhook-worker/src/main.ts", { ...common, METRICS_PORT: "0" }),
  };
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHttp(`${baseUrl}/ready`, 60_000);

  // One transaction to CONFIRMED: the chain's follower and every worker's schedules are running.
  const answer = await fetch(`${baseUrl}/transact/sendTransaction`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${project.apiKey}` },
    body: JSON.stringify({ projectId: project.projectId, chainId: anvil.chainId, contractAddress: recorder.address, functionSignature: "function spend(uint256 n)", args: { n: "1" }, requestId: randomUUID() }),
  });
  if (!answer.ok) throw new Error(`sendTransaction answered ${answer.status}: ${await answer.text()}`);
  const pool = createPool({ url: database.url, poolSize: 1 });
  const deadline = Date.now() + 60_000;
  while ((await pool.query(`select 1 from "transaction" where status = 'CONFIRMED'`)).rowCount === 0) {
    if (Date.now() > deadline) throw new Error("the warm-up transaction was not CONFIRMED within 60 s");
    await new Promise((r) => setTimeout(r, 200));
  }
  await pool.end();
  await new Promise((r) => setTimeout(r, settle * 1000));

  const bare = spawn(process.execPath, ["-e", "setInterval(() => {}, 1 << 30)"], { stdio: "ignore" });
  const meter = cpuMeter({
    ...Object.fromEntries(Object.entries(apps).map(([name, child]) => [name, [child.pid!]])),
    "postgres backends (this db)": postgresBackendsOf(database.name),
    redis: /^redis-server/,
    "anvil (the chain, not counted)": [anvil.process.pid!],
    "baseline: idle node process": [bare.pid!],
  });
  meter.start();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const used = meter.stop();
  bare.kill("SIGKILL");

  await Promise.all(Object.values(apps).map(stopApp));
  await anvil.stop();
  await deleteQueueKeys(prefix);
  await database.drop();

  const share = (cpuSeconds: number) => cpuSeconds / seconds;
  const pct = (x: number) => `${(x * 100).toFixed(2)} % of a core`;
  process.stdout.write("\n");
  line("settings", `${seconds} s without traffic after ${settle} s settling; anvil mining a block every ${blockTime} s; ${process.env.BENCH_APPS === "built" ? "bundles" : "sources through tsx"}`);
  let relay = 0;
  for (const [name, secs] of Object.entries(used)) {
    line(`  ${name}`, pct(share(secs)));
    if (!name.startsWith("anvil") && !name.startsWith("baseline")) relay += secs;
  }
  const baseline = share(used["baseline: idle node process"] ?? 0);
  line("relay, all its processes (no anvil)", pct(share(relay)));
  line("baseline: one idle node process", pct(baseline));
  line("ratio relay / baseline", baseline > 0 ? (share(relay) / baseline).toFixed(1) : "— (the baseline used no measurable CPU)");
  line("target", `relay < ${pct(TARGET)}: ${share(relay) < TARGET ? "met" : "NOT met"} in this run`);
  process.exit(0);
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
