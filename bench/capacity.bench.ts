/**
 * Capacity: the CPU each component of the relay spends per accepted request, per confirmed
 * transaction and per delivered webhook event, with the whole system running as separate
 * processes (gateway, K tx-workers, signing-worker, webhook-worker) against anvil with 1 s blocks,
 * a fresh database and a webhook receiver (its own process, answering 200) registered for the
 * project's status changes, so every status change is delivered. Three phases in one run:
 *   send: open loop at R sendTransaction requests per second for S seconds over W wallets, then
 *     until every accepted transaction is final and every event delivered; CPU per group from the
 *     first request to the last delivery; a capacity table from it (cores per component for
 *     1 000 and 10 000 confirmed tx/s when planned --headroom busy, and the rate one core takes);
 *   sign: open loop at R personal-sign requests per second for S seconds, CPU per signature;
 *   baseline: a bare Express process answering the same sendTransaction bodies at the same rate
 *     (bench/lib/bare-express.ts), its CPU per request beside the gateway's.
 *
 *   pnpm bench:capacity [--rate 100] [--seconds 30] [--wallets 20] [--workers 1] [--headroom 0.7]
 *                       [--stall 120]
 *
 * Exits 2 when not every accepted transaction ended CONFIRMED, not every event was delivered, or
 * not every signature was answered 200.
 */
import { randomUUID } from "node:crypto";
import type { ChildProcess } from "node:child_process";
import { createPool } from "@relay/db";
import { line, numberArg } from "./lib/args";
import { cpuMeter } from "./lib/cpu";
import { fixedCount, fixedRate, type FixedLoadResult } from "./lib/fixed-load";
import { machineMeter } from "./lib/machine";
import { startApp, stopApp, waitForHttp, waitForListening } from "./lib/processes";
import { startProjectOnAnvil, type ProjectOnAnvil } from "./lib/project-on-anvil";
import { sendTransactionBody } from "./lib/recorder-calls";
import { freePort, postgresOf, redisServerPid } from "./lib/relay";
import { acceptLatencies, finalCount, statusCounts, waitUntilFinal, type Percentiles } from "./lib/transaction-progress";
import { deliveryCounts, waitUntilDelivered } from "./lib/webhook-progress";

const rate = numberArg("rate", 100);
const seconds = numberArg("seconds", 30);
const walletCount = numberArg("wallets", 20);
const workers = numberArg("workers", 1);
const headroom = numberArg("headroom", 0.7);
const stallSeconds = numberArg("stall", 120);
const BLOCK_TIME = 1;
const GAS_LIMIT = 1_000_000_000;
const PLANNED_RATES = [1_000, 10_000];
const requests = Math.max(1, Math.round(rate * seconds));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const µs = (cpuSeconds: number, per: number) => `${((cpuSeconds / Math.max(1, per)) * 1e6).toFixed(0)} µs`;
const pct = (cpuSeconds: number, wallSeconds: number) => `${((cpuSeconds / wallSeconds) * 100).toFixed(0)}% of a core`;
const latency = (p: Percentiles | null) => (p ? `${(p.p50 / 1000).toFixed(2)} / ${(p.p99 / 1000).toFixed(2)} s` : "—");

// ------------------------------------------------------------------------------------------------
// The system: every app in its own process, a webhook receiver registered for status changes

interface RelaySystem {
  stage: ProjectOnAnvil;
  gateway: ChildProcess;
  txWorkers: ChildProcess[];
  signer: ChildProcess;
  webhookWorker: ChildProcess;
  receiver: ChildProcess;
  baseUrl: string;
  receiverUrl: string;
  headers: Record<string, string>;
  sql: ReturnType<typeof createPool>;
  redisPid: number;
}

async function startSystem(): Promise<RelaySystem> {
  const stage = await startProjectOnAnvil({ chainId: 31_700 + Math.floor(Math.random() * 90), blockTime: BLOCK_TIME, gasLimit: GAS_LIMIT, wallets: walletCount, name: "bench-capacity" });
  const [port, receiverPort] = [await freePort(), await freePort()];
  const receiver = startApp("bench/lib/webhook-receiver.ts", { PORT: String(receiverPort) });
  // The gateway never holds the key-encryption key; the webhook secret key is startApp's, one for all.
  const gateway = startApp("apps/gateway/src/main.ts", { ...stage.appEnv, PORT: String(port), RATE_LIMIT_PER_MINUTE: "100000000" });
  const txWorkers = Array.from({ length: workers }, () => startApp("apps/tx-worker/src/main.ts", { ...stage.appEnv, ...stage.custodyEnv }));
  const signer = startApp("apps/signing-worker/src/main.ts", { ...stage.appEnv, ...stage.custodyEnv });
  const webhookWorker = startApp("apps/webhook-worker/src/main.ts", { ...stage.appEnv, WEBHOOK_ALLOW_PRIVATE: "true" });
  const baseUrl = `http://127.0.0.1:${port}`;
  const receiverUrl = `http://127.0.0.1:${receiverPort}`;
  await waitForHttp(`${baseUrl}/ready`);
  await waitForHttp(`${receiverUrl}/count`);
  const headers = { "content-type": "application/json", authorization: `Bearer ${stage.project.apiKey}` };

  // Registered through the gateway, as an integrator would: the secret is sealed by the gateway.
  const registered = await fetch(`${baseUrl}/webhook/project/${stage.project.projectId}/eventCallback`, {
    method: "POST",
    headers,
    body: JSON.stringify({ callbackURL: `${receiverUrl}/hooks`, eventType: "TransactionStatusChange" }),
  });
  if (!registered.ok) throw new Error(`registering the webhook: ${registered.status} ${await registered.text()}`);

  const sql = createPool({ url: stage.database.url, poolSize: 2 });
  return { stage, gateway, txWorkers, signer, webhookWorker, receiver, baseUrl, receiverUrl, headers, sql, redisPid: await redisServerPid() };
}

async function stopSystem(system: RelaySystem) {
  await system.sql.end();
  await Promise.all([system.gateway, ...system.txWorkers, system.signer, system.webhookWorker, system.receiver].map(stopApp));
  await system.stage.release();
}

const sendUrl = (system: RelaySystem) => `${system.baseUrl}/transact/sendTransaction`;
const sendBody = (system: RelaySystem) => {
  const { project, anvil, recorderAddress } = system.stage;
  const target = { projectId: project.projectId, chainId: anvil.chainId, contractAddress: recorderAddress };
  return (i: number) => sendTransactionBody(target, "setOrder", i, randomUUID());
};
const signUrl = (system: RelaySystem) => `${system.baseUrl}/wallet/project/${system.stage.project.projectId}/personalSign`;
const signBody = (system: RelaySystem) => (i: number) => JSON.stringify({ signerAddress: system.stage.project.wallets[i % walletCount]!.address, message: `capacity ${i}` });

/**
 * Two transactions per wallet to a final status and their events delivered, and a few signatures,
 * so every process is up, JIT-compiled and connected before anything is measured.
 */
async function warmUp(system: RelaySystem) {
  const since = new Date(Date.now() - 1000);
  const count = walletCount * 2;
  const body = sendBody(system);
  await fixedCount({ url: sendUrl(system), concurrency: Math.min(50, count), count, headers: system.headers, body: (i) => body(requests + i) });
  await waitUntilFinal(system.sql, since, count, 120_000);
  await waitUntilDelivered(system.sql, system.stage.project.projectId, since, 120_000);
  await fixedCount({ url: signUrl(system), concurrency: 10, count: 50, headers: system.headers, body: signBody(system) });
  await sleep(1000); // the warm-up's last timestamps are well before the phase's start
}

// ------------------------------------------------------------------------------------------------
// Phase "send": open loop until every transaction is final and every event delivered

interface SendResult {
  ingress: FixedLoadResult;
  accepted: number;
  statuses: Record<string, number>;
  events: number;
  delivered: number;
  failedDeliveries: number;
  receiverRequests: number;
  /** CPU seconds per group, from the first request to the last delivery. */
  cpu: Record<string, number>;
  /** The gateway's CPU seconds while the requests were being answered, for the baseline. */
  gatewayDuringLoad: number;
  wallSeconds: number;
  machineSeconds: number;
  cores: number;
  toBroadcast: Percentiles | null;
  toConfirmed: Percentiles | null;
  stopped: string | null;
}

const TX_WORKER = workers > 1 ? `tx-workers (${workers})` : "tx-worker";
const RELAY_COMPONENTS = ["gateway", TX_WORKER, "webhook-worker", "postgres", "redis"];

async function runSendPhase(system: RelaySystem): Promise<SendResult> {
  const { stage, sql } = system;
  const receivedBefore = await receiverRequests(system);
  const meter = cpuMeter({
    gateway: [system.gateway.pid!],
    [TX_WORKER]: system.txWorkers.map((w) => w.pid!),
    "signing-worker": [system.signer.pid!],
    "webhook-worker": [system.webhookWorker.pid!],
    postgres: postgresOf(stage.database.name),
    redis: [system.redisPid],
    anvil: [stage.anvil.process.pid!],
    "webhook receiver (the integrator's)": [system.receiver.pid!],
    "bench process (load, polls)": [process.pid],
  });
  const gatewayMeter = cpuMeter({ gateway: [system.gateway.pid!] });
  const machine = machineMeter();
  machine.start();
  meter.start();
  gatewayMeter.start();
  const t0 = new Date();
  const p0 = performance.now();

  let ingress: FixedLoadResult | undefined;
  let gatewayDuringLoad = 0;
  const load = fixedRate({ url: sendUrl(system), rate, count: requests, headers: system.headers, body: sendBody(system) }).then((r) => {
    gatewayDuringLoad = gatewayMeter.stop().gateway ?? 0;
    ingress = r;
  });

  let statuses: Record<string, number> = {};
  let deliveries = { events: 0, delivered: 0, failed: 0 };
  let progress = { mark: "", at: Date.now() };
  let stopped: string | null = null;
  let lastPrint = 0;
  for (;;) {
    await sleep(500);
    statuses = await statusCounts(sql, t0);
    deliveries = await deliveryCounts(sql, stage.project.projectId, t0);
    const mark = `${finalCount(statuses)}/${deliveries.delivered + deliveries.failed}`;
    if (mark !== progress.mark) progress = { mark, at: Date.now() };
    if (Date.now() - lastPrint >= 5000) {
      lastPrint = Date.now();
      process.stderr.write(`  send t=${((performance.now() - p0) / 1000).toFixed(0)} s ingress ${ingress ? "done" : "running"} ${JSON.stringify(statuses)} events ${JSON.stringify(deliveries)}\n`);
    }
    if (ingress && finalCount(statuses) >= (ingress.statuses[200] ?? 0) && deliveries.delivered + deliveries.failed >= deliveries.events) break;
    if (Date.now() - progress.at > stallSeconds * 1000) {
      stopped = `no transaction became final and no event was delivered for ${stallSeconds} s`;
      break;
    }
  }
  const cpu = meter.stop();
  const machineSeconds = machine.stop();
  const wallSeconds = (performance.now() - p0) / 1000;
  await load;
  const latencies = await acceptLatencies(sql, t0);
  return {
    ingress: ingress!,
    accepted: ingress!.statuses[200] ?? 0,
    statuses,
    events: deliveries.events,
    delivered: deliveries.delivered,
    failedDeliveries: deliveries.failed,
    receiverRequests: (await receiverRequests(system)) - receivedBefore,
    cpu,
    gatewayDuringLoad,
    wallSeconds,
    machineSeconds,
    cores: machine.cores,
    toBroadcast: latencies.toBroadcast,
    toConfirmed: latencies.toConfirmed,
    stopped,
  };
}

const receiverRequests = async (system: RelaySystem) => ((await (await fetch(`${system.receiverUrl}/count`)).json()) as { requests: number }).requests;

// ------------------------------------------------------------------------------------------------
// Phase "sign": open loop of personal signs through the gateway and the signing-worker

interface SignResult {
  load: FixedLoadResult;
  cpu: Record<string, number>;
  wallSeconds: number;
}

async function runSignPhase(system: RelaySystem): Promise<SignResult> {
  const meter = cpuMeter({
    gateway: [system.gateway.pid!],
    "signing-worker": [system.signer.pid!],
    postgres: postgresOf(system.stage.database.name),
    redis: [system.redisPid],
  });
  meter.start();
  const p0 = performance.now();
  const load = await fixedRate({ url: signUrl(system), rate, count: requests, headers: system.headers, body: signBody(system) });
  const cpu = meter.stop();
  return { load, cpu, wallSeconds: (performance.now() - p0) / 1000 };
}

// ------------------------------------------------------------------------------------------------
// Baseline: a bare Express process answering the same bodies at the same rate

interface BaselineResult {
  load: FixedLoadResult;
  cpuSeconds: number;
}

async function runBareBaseline(system: RelaySystem): Promise<BaselineResult> {
  const port = await freePort();
  const bare = startApp("bench/lib/bare-express.ts", { PORT: String(port) });
  const url = `http://127.0.0.1:${port}/transact/sendTransaction`;
  await waitForListening(`http://127.0.0.1:${port}`);
  const body = sendBody(system);
  await fixedRate({ url, rate, count: Math.min(requests, Math.round(rate * 2)), headers: system.headers, body }); // warm-up
  const meter = cpuMeter({ bare: [bare.pid!] });
  meter.start();
  const load = await fixedRate({ url, rate, count: requests, headers: system.headers, body });
  const cpuSeconds = meter.stop().bare ?? 0;
  await stopApp(bare);
  return { load, cpuSeconds };
}

// ------------------------------------------------------------------------------------------------
// Report

function printSend(send: SendResult) {
  const confirmed = send.statuses.CONFIRMED ?? 0;
  line("send phase", `${requests} sendTransaction requests open loop at ${rate}/s over ${walletCount} wallets; ${workers} tx-worker(s); anvil ${BLOCK_TIME} s blocks`);
  line("  ingress", `${send.ingress.perSecond.toFixed(0)} req/s answered, p50/p99 ${send.ingress.p50.toFixed(1)}/${send.ingress.p99.toFixed(1)} ms, statuses ${JSON.stringify(send.ingress.statuses)}`);
  for (const sample of send.ingress.errorSamples) line("    non-200 answer", sample);
  line("  transactions", `${send.accepted} accepted, ${confirmed} CONFIRMED; statuses ${JSON.stringify(send.statuses)}`);
  line("  webhook events", `${send.events} status changes (${(send.events / Math.max(1, send.accepted)).toFixed(2)} per transaction), ${send.delivered} DELIVERED, ${send.failedDeliveries} failed; receiver saw ${send.receiverRequests} requests`);
  line("  first request → last delivery", `${send.wallSeconds.toFixed(1)} s (the window the CPU below is measured over)`);
  line("  accept → broadcast (SUBMITTED) p50 / p99", latency(send.toBroadcast));
  line("  accept → CONFIRMED p50 / p99", latency(send.toConfirmed));
  if (send.stopped) line("  STOPPED EARLY", send.stopped);
  line("  CPU per group", "% of a core over the window, µs per accepted request, per confirmed tx");
  for (const [name, secs] of Object.entries(send.cpu)) {
    const perEvent = name === "webhook-worker" ? `, ${µs(secs, send.delivered)} per delivered event` : "";
    line(`    ${name}`, `${pct(secs, send.wallSeconds)}, ${µs(secs, send.accepted)} per request, ${µs(secs, confirmed)} per tx${perEvent}`);
  }
  const ours = Object.values(send.cpu).reduce((a, b) => a + b, 0);
  line(
    "  whole machine",
    `${((send.machineSeconds / send.wallSeconds) * 100).toFixed(0)}% of ${send.cores * 100}%; the groups above ${((ours / send.wallSeconds) * 100).toFixed(0)}%, others ${(((send.machineSeconds - ours) / send.wallSeconds) * 100).toFixed(0)}%`,
  );
  line("  note", "postgres = this database's backends + the server's WAL writer, checkpointer and bgwriter (shared with any other database in use)");
}

function printCapacity(send: SendResult) {
  const confirmed = Math.max(1, send.statuses.CONFIRMED ?? 0);
  const perTx = (name: string) => (send.cpu[name] ?? 0) / confirmed;
  const cores = (name: string, txPerSecond: number) => Math.ceil((txPerSecond * perTx(name)) / headroom);
  const row = (name: string) =>
    `${(perTx(name) * 1000).toFixed(2).padStart(6)} ms/tx  ${PLANNED_RATES.map((r) => String(cores(name, r)).padStart(6)).join("")}  ${(headroom / perTx(name)).toFixed(0).padStart(8)} tx/s`;
  line(`capacity (from the send phase)`, `cores each component needs for ${PLANNED_RATES.join(" and ")} confirmed tx/s, planned ${(headroom * 100).toFixed(0)}% busy`);
  line("  component", `${"CPU per tx".padStart(12)}  ${PLANNED_RATES.map((r) => `@${r / 1000}k`.padStart(6)).join("")}  ${"1 core takes".padStart(13)}`);
  for (const name of RELAY_COMPONENTS) line(`  ${name}`, row(name));
  const total = PLANNED_RATES.map((r) => String(RELAY_COMPONENTS.reduce((sum, name) => sum + cores(name, r), 0)).padStart(6)).join("");
  const totalPerTx = RELAY_COMPONENTS.reduce((sum, name) => sum + perTx(name), 0);
  line("  total (relay)", `${(totalPerTx * 1000).toFixed(2).padStart(6)} ms/tx  ${total}  ${(headroom / totalPerTx).toFixed(0).padStart(8)} tx/s`);
  line("  anvil (test chain)", row("anvil"));
  line("  note", "cores = rate × CPU-seconds per confirmed tx / headroom, rounded up per component; anvil's share is the test chain's own and says nothing of a real node");
  line("  note", `the signing-worker is not in the table (idle during sends: ${µs(send.cpu["signing-worker"] ?? 0, confirmed)} per tx); personal signs below`);
}

function printSign(sign: SignResult) {
  const ok = sign.load.statuses[200] ?? 0;
  line("sign phase", `${requests} personal signs open loop at ${rate}/s: ${sign.load.perSecond.toFixed(0)} req/s answered, p50/p99 ${sign.load.p50.toFixed(1)}/${sign.load.p99.toFixed(1)} ms, statuses ${JSON.stringify(sign.load.statuses)}`);
  for (const sample of sign.load.errorSamples) line("    non-200 answer", sample);
  for (const [name, secs] of Object.entries(sign.cpu)) {
    line(`  ${name}`, `${pct(secs, sign.wallSeconds)}, ${µs(secs, ok)} per signature, one core takes ${(headroom / (secs / Math.max(1, ok))).toFixed(0)} signatures/s at ${(headroom * 100).toFixed(0)}% busy`);
  }
}

function printBaseline(send: SendResult, bare: BaselineResult) {
  const gatewayPerRequest = send.gatewayDuringLoad / Math.max(1, send.ingress.requests);
  const barePerRequest = bare.cpuSeconds / Math.max(1, bare.load.requests);
  line("baseline: bare Express, same rate and bodies", `${bare.load.perSecond.toFixed(0)} req/s answered, statuses ${JSON.stringify(bare.load.statuses)}`);
  line("  CPU per request: gateway / bare Express", `${(gatewayPerRequest * 1e6).toFixed(0)} µs / ${(barePerRequest * 1e6).toFixed(0)} µs (gateway while the send requests were answered)`);
  line("  ratio gateway / bare", (gatewayPerRequest / Math.max(1e-9, barePerRequest)).toFixed(1));
}

async function main() {
  if (headroom > 1) throw new Error(`--headroom is the share of a core planned busy, at most 1; got ${headroom}`);
  const system = await startSystem();
  await warmUp(system);
  const send = await runSendPhase(system);
  const sign = await runSignPhase(system);
  const bare = await runBareBaseline(system);
  await stopSystem(system);

  process.stdout.write("\n");
  printSend(send);
  printCapacity(send);
  printSign(sign);
  printBaseline(send, bare);

  const problems = [
    (send.statuses.CONFIRMED ?? 0) < send.accepted && `${send.accepted - (send.statuses.CONFIRMED ?? 0)} accepted transactions not CONFIRMED`,
    send.delivered < send.events && `${send.events - send.delivered} events not delivered`,
    send.stopped,
    (sign.load.statuses[200] ?? 0) < requests && `${requests - (sign.load.statuses[200] ?? 0)} signatures not answered 200`,
  ].filter((p): p is string => typeof p === "string");
  for (const p of problems) line("INCOMPLETE", p);
  process.exit(problems.length ? 2 : 0);
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
