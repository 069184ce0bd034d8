/**
 * sendTransaction ingress: accepted `POST /transact/sendTransaction` per second and latency at 50
 * closed-loop clients against the gateway process alone (no tx-worker runs, so only the ingress
 * is measured: auth, rate limit, zod, ABI encoding, the PENDING record with its status change and
 * outbox event in Postgres, the BullMQ job). Beside it, in the same run and with the same load
 * generator, a bare Express 5 process (`express.json()` + a handler answering
 * `{transactionId: randomUUID()}`, bench/lib/bare-express.ts).
 *
 *   pnpm bench:send-ingress [--seconds 20] [--rounds 4] [--concurrency 50] [--no-request-id] [--policy none|allowlist|limits] [--wallets 1]
 *
 * The two are measured in alternation, `--rounds` slices of seconds/rounds each, so that a change
 * of this VM's speed during the run (it varies by a third between minutes here) falls on both.
 *
 * Each request is a valid Recorder `setOrder` call with its own order id and, unless
 * --no-request-id, its own requestId (a random UUID). A chain pointing at an anvil node is
 * registered (the gateway checks it exists; it never calls the node) and the project has one wallet
 * (--wallets N: N wallets).
 *
 * --policy: the project's policy (docs/policies.md) during the run. `allowlist`: the Recorder's
 * setOrder is the only function allowed (checked from the cached policy, no extra statement);
 * `limits`: the same allowlist and a value limit per wallet per day (never reached), so every send
 * takes the spend guard's path: the wallets' locks, their last 24 hours summed, the INSERT, in one
 * database transaction per request.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { createDatabase, createPool } from "@relay/db";
import { createProjectFixture, createTestDatabase, deployRecorder, startAnvil, testQueuePrefix } from "@relay/testing";
import { createPolicyRepository } from "@relay/db";
import { parsePolicy } from "@relay/policies";
import { choiceArg, flag, line, numberArg } from "./lib/args";
import { cpuMeter } from "./lib/cpu";
import { closedLoop, mergeLoads, type LoadResult } from "./lib/load";
import { machineMeter } from "./lib/machine";
import { startApp, stopApp, waitForHttp, waitForListening } from "./lib/processes";
import { deleteQueueKeys, freePort, postgresBackendsOf, postgresBackground, registerChain } from "./lib/relay";

const seconds = numberArg("seconds", 20);
const rounds = numberArg("rounds", 4);
const concurrency = numberArg("concurrency", 50);
const withRequestId = !flag("no-request-id");
const policyKind = choiceArg("policy", ["none", "allowlist", "limits"] as const, "none");
const walletCount = numberArg("wallets", 1);
const WARM_UP_SECONDS = 3;

async function main() {
  const anvil = await startAnvil({ chainId: 31_900 + Math.floor(Math.random() * 90) });
  const recorder = await deployRecorder(anvil.rpcUrl);
  recorder.provider.destroy();

  const database = await createTestDatabase({ migrate: true });
  const prefix = testQueuePrefix("bench-send-ingress");
  const kekBytes = randomBytes(32);
  const db = createDatabase({ url: database.url });
  await registerChain(db, anvil, 1000);
  const project = await createProjectFixture(db, { activeKeyId: "bench", keys: new Map([["bench", kekBytes]]) }, { wallets: walletCount });
  if (policyKind !== "none") {
    const allowlist = { contracts: { [String(anvil.chainId)]: [{ address: recorder.address, functions: ["setOrder((uint256,address,uint8[]))"] }] } };
    const limits = policyKind === "limits" ? { valuePerWalletPerDayWei: (10n ** 30n).toString() } : {};
    await createPolicyRepository(db).set(project.projectId, parsePolicy({ ...allowlist, ...limits }));
  }
  await db.$disconnect();
  const owner = project.wallets[0]!.address;

  const [gatewayPort, barePort] = [await freePort(), await freePort()];
  // The gateway never holds the key-encryption key (DESIGN.md).
  const gateway = startApp("apps/gateway/src/main.ts", {
    DATABASE_URL: database.url,
    QUEUE_PREFIX: prefix,
    PORT: String(gatewayPort),
    RATE_LIMIT_PER_MINUTE: "100000000",
  });
  const bare = startApp("bench/lib/bare-express.ts", { PORT: String(barePort) });
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const bareUrl = `http://127.0.0.1:${barePort}`;
  await waitForHttp(`${gatewayUrl}/ready`);
  await waitForListening(bareUrl);

  const headers = { "content-type": "application/json", authorization: `Bearer ${project.apiKey}` };
  const body = (i: number) =>
    JSON.stringify({
      projectId: project.projectId,
      chainId: anvil.chainId,
      contractAddress: recorder.address,
      functionSignature: "function setOrder((uint256 id, address owner, uint8[] flags) order)",
      args: { order: { id: String(i + 1), owner, flags: [1, 2, 3] } },
      ...(withRequestId ? { requestId: randomUUID() } : {}),
    });
  const load = (baseUrl: string, s: number) => closedLoop({ url: `${baseUrl}/transact/sendTransaction`, concurrency, seconds: s, headers, body });

  const pool = createPool({ url: database.url, poolSize: 1 });
  const countRows = async () => Number((await pool.query<{ n: string }>(`select count(*) as n from "transaction"`)).rows[0]!.n);

  // Warm-up of both (JIT, connection pools, the gateway's auth and chain caches), then one after the other.
  await load(gatewayUrl, WARM_UP_SECONDS);
  await load(bareUrl, WARM_UP_SECONDS);

  const rowsBefore = await countRows();
  const gatewayMeter = cpuMeter({
    gateway: [gateway.pid!],
    "load generator": [process.pid],
    "postgres backends (this db)": postgresBackendsOf(database.name),
    "postgres wal writer, bgwriter, ckpt": postgresBackground,
    redis: /^redis-server/,
  });
  const bareMeter = cpuMeter({ "bare express": [bare.pid!], "load generator": [process.pid] });
  const machine = machineMeter();
  const relayPhases: LoadResult[] = [];
  const barePhases: LoadResult[] = [];
  const relayCpu: Record<string, number> = {};
  const bareCpu: Record<string, number> = {};
  let relayMachine = 0;
  let bareMachine = 0;
  const add = (into: Record<string, number>, from: Record<string, number>) => {
    for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
  };
  for (let round = 0; round < rounds; round++) {
    machine.start();
    gatewayMeter.start();
    relayPhases.push(await load(gatewayUrl, seconds / rounds));
    add(relayCpu, gatewayMeter.stop());
    relayMachine += machine.stop();

    machine.start();
    bareMeter.start();
    barePhases.push(await load(bareUrl, seconds / rounds));
    add(bareCpu, bareMeter.stop());
    bareMachine += machine.stop();
  }
  const relay = mergeLoads(relayPhases);
  const baseline = mergeLoads(barePhases);
  const rowsWritten = (await countRows()) - rowsBefore;

  await pool.end();
  await Promise.all([stopApp(gateway), stopApp(bare)]);
  await anvil.stop();
  const deleted = await deleteQueueKeys(prefix);
  await database.drop();

  const accepted = (r: LoadResult) => (r.statuses[200] ?? 0) / r.seconds;
  const report = (name: string, r: LoadResult, cpu: Record<string, number>, machineSecs: number) => {
    line(`${name}`, `${accepted(r).toFixed(0)} accepted req/s (${r.requests} requests in ${r.seconds.toFixed(1)} s, statuses ${JSON.stringify(r.statuses)})`);
    line(`  latency p50 / p90 / p99 / max`, `${r.p50.toFixed(1)} / ${r.p90.toFixed(1)} / ${r.p99.toFixed(1)} / ${r.max.toFixed(1)} ms`);
    for (const [group, secs] of Object.entries(cpu)) {
      line(`  CPU ${group}`, `${((secs / r.seconds) * 100).toFixed(0)}% of a core, ${((secs / Math.max(1, r.requests)) * 1e6).toFixed(0)} µs per request`);
    }
    const ours = Object.values(cpu).reduce((a, b) => a + b, 0);
    line(
      "  CPU whole machine",
      `${((machineSecs / r.seconds) * 100).toFixed(0)}% of ${machine.cores * 100}%; the processes above ${((ours / r.seconds) * 100).toFixed(0)}%, others ${(((machineSecs - ours) / r.seconds) * 100).toFixed(0)}%`,
    );
  };
  line("clients / duration", `${concurrency} closed-loop clients / ${seconds} s each in ${rounds} alternating slices (after ${WARM_UP_SECONDS} s warm-up each), requestId: ${withRequestId ? "a new UUID per request" : "none"}`);
  line("project policy / wallets", `${policyKind} / ${walletCount}`);
  report("gateway sendTransaction (no tx-worker)", relay, relayCpu, relayMachine);
  line("  transactions written during the run", `${rowsWritten} (200 answers: ${relay.statuses[200] ?? 0})`);
  report("bare Express 5 JSON handler", baseline, bareCpu, bareMachine);
  line("ratio gateway / bare", (accepted(relay) / accepted(baseline)).toFixed(2));
  line("cleanup", `${deleted} Redis keys of the run deleted, database dropped`);
  const gatewayShare = (relayCpu.gateway ?? 0) / relay.seconds;
  const gatewayPerRequest = (relayCpu.gateway ?? 0) / Math.max(1, relay.requests);
  line(
    "what bounds it (this run)",
    `gateway process at ${(gatewayShare * 100).toFixed(0)}% of a core${gatewayShare > 0.85 ? " (its one event loop is saturated)" : ""}, ` +
      `${(gatewayPerRequest * 1e6).toFixed(0)} µs CPU per request against ${(((bareCpu["bare express"] ?? 0) / Math.max(1, baseline.requests)) * 1e6).toFixed(0)} µs for the bare handler; ` +
      `half the bare rate (${(accepted(baseline) / 2).toFixed(0)}/s) on one core needs <= ${(2e6 / Math.max(1, accepted(baseline))).toFixed(0)} µs per request in the gateway`,
  );
  const met = accepted(relay) >= 0.5 * accepted(baseline) && relay.p99 < 50;
  line("target", `>= 0.5 of the bare handler's rate, p99 < 50 ms: ${met ? "met" : "NOT met"} in this run`);
  process.exit(0);
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
