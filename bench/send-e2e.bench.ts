/**
 * sendTransaction end to end: N contract calls over W project wallets, from the first HTTP request
 * to the last transaction CONFIRMED, through the gateway and tx-worker processes, on anvil with
 * 1 s blocks. Beside it, in the same run, baselines (--baseline):
 *   ceiling: the chain's own ceiling — the same calls signed beforehand from W fresh wallets and
 *     pushed to the same anvil in JSON-RPC batches as fast as it takes them, then their receipts;
 *   ethers: the same calls signed and sent directly with ethers v6 from W wallets (nonces kept
 *     locally, sendTransaction without waiting, then all receipts) on a fresh anvil.
 * --rate R sends the requests open-loop at R per second (as independent callers would) instead of
 * from --concurrency closed-loop clients. Without --rate, a second phase follows the full-load one
 * on a fresh relay and chain: open loop at half the confirmed rate the first phase reached, for
 * --half-seconds (default 30), and its latencies are printed beside the full-load ones
 * (--no-half-load skips it).
 *
 *   pnpm bench:send-e2e [--count 10000] [--wallets 20] [--workers 1] [--tx-concurrency 128]
 *                       [--concurrency 50 | --rate 150] [--call setOrder|spend] [--block-time 1]
 *                       [--gas-limit 1000000000] [--baseline ceiling|ethers|both]
 *                       [--baseline-concurrency 100] [--timeout 1800]
 *                       [--half-seconds 30] [--no-half-load]
 *
 * TX_CONCURRENCY in the environment sets the default of --tx-concurrency (the worker's own
 * default is 128). Completion is read from Postgres (count of final statuses), not by HTTP per
 * transaction. Anvil runs with a block gas limit of 1 G gas by default, so that block space is not
 * what bounds the rate (30 M, anvil's default, holds ~500 such calls per block).
 *
 * Prints the rates, their ratios, accept → broadcast and accept → CONFIRMED percentiles, per-process
 * CPU and peak RSS, JSON-RPC calls and Postgres commits per transaction, block fill, and a first
 * reading of what bounds the rate. Exits 2 when not every
 * transaction ended CONFIRMED (those that did not are listed).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { Interface, JsonRpcProvider, Network, Wallet, hexlify, type TransactionResponse } from "ethers";
import { createPool } from "@relay/db";
import { deployRecorder, startAnvil, type AnvilInstance } from "@relay/testing";
import { choiceArg, flag, line, numberArg } from "./lib/args";
import { blockStats, countRpcCalls, observeChain } from "./lib/chain-observer";
import { cpuMeter } from "./lib/cpu";
import { measureCeiling, type CeilingResult } from "./lib/chain-ceiling";
import { fixedCount, fixedRate, type FixedLoadResult } from "./lib/fixed-load";
import { machineMeter } from "./lib/machine";
import { peakRssMiB, startApp, stopApp, waitForHttp } from "./lib/processes";
import { startProjectOnAnvil } from "./lib/project-on-anvil";
import { RECORDER_CALLS, recorderEthersArgs, sendTransactionBody } from "./lib/recorder-calls";
import { benchProvider, freePort, fund, postgresBackendsOf, postgresBackground } from "./lib/relay";
import { acceptLatencies, finalCount, statusCounts, waitUntilFinal } from "./lib/transaction-progress";

const count = numberArg("count", 10_000);
const walletCount = numberArg("wallets", 20);
const workers = numberArg("workers", 1);
const txConcurrency = numberArg("tx-concurrency", Number(process.env.TX_CONCURRENCY ?? 128));
const clients = numberArg("concurrency", 50);
const blockTime = numberArg("block-time", 1);
const gasLimit = numberArg("gas-limit", 1_000_000_000);
const baselineConcurrency = numberArg("baseline-concurrency", 100);
const timeoutSeconds = numberArg("timeout", 1800);
const call = choiceArg("call", ["setOrder", "spend"] as const, "setOrder");
const rate = numberArg("rate", 0);
const baselines = choiceArg("baseline", ["ceiling", "ethers", "both"] as const, "ceiling");
const halfSeconds = numberArg("half-seconds", 30);
const halfLoad = rate === 0 && !flag("no-half-load");
/** No final status for this long while some are missing: give up and report what is left. */
const STALL_SECONDS = 120;

const ethersArgs = (i: number) => recorderEthersArgs(call, i);

const seconds = (ms: number) => (ms / 1000).toFixed(2);
const rpcSummary = (calls: Map<string, number>, own: Map<string, number>, perTx: number) =>
  [...calls.entries()]
    .map(([m, n]) => [m, n - (own.get(m) ?? 0)] as const)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([m, n]) => `${m} ${(n / perTx).toFixed(2)}`)
    .join(", ");

interface CpuReport {
  groups: Record<string, number>;
  machine: number;
  cores: number;
  wallSeconds: number;
}

function printCpu(cpu: CpuReport, transactions: number) {
  for (const [name, secs] of Object.entries(cpu.groups)) {
    line(`  CPU ${name}`, `${((secs / cpu.wallSeconds) * 100).toFixed(0)}% of a core, ${((secs / Math.max(1, transactions)) * 1e6).toFixed(0)} µs per transaction`);
  }
  const ours = Object.values(cpu.groups).reduce((a, b) => a + b, 0);
  line(
    "  CPU whole machine",
    `${((cpu.machine / cpu.wallSeconds) * 100).toFixed(0)}% of ${cpu.cores * 100}% (${cpu.cores} cores); the processes above ${((ours / cpu.wallSeconds) * 100).toFixed(0)}%, others ${(((cpu.machine - ours) / cpu.wallSeconds) * 100).toFixed(0)}%`,
  );
}

// ------------------------------------------------------------------------------------------------
// The relay: gateway + tx-worker processes

interface RelayResult {
  ingress: FixedLoadResult;
  accepted: number;
  statuses: Record<string, number>;
  firstConfirmedMs: number | null;
  lastConfirmedMs: number | null;
  lastSubmittedMs: number | null;
  pendingToSubmitted: { p50: number; p99: number } | null;
  submittedToConfirmed: { p50: number; p99: number } | null;
  acceptedToConfirmed: { p50: number; p99: number } | null;
  /** Peak resident memory (VmHWM) of each app process over the run, MiB. */
  peakRss: Record<string, number>;
  ceiling: CeilingResult | null;
  replaced: number;
  notConfirmed: { id: string; status: string; error: string | null; from: string | null; nonce: string | null; hash: string | null }[];
  blocks: ReturnType<typeof blockStats>;
  lastMinedMs: number | null;
  rpc: string;
  /** Postgres transactions committed in the benchmark's database during the run (each autocommit statement is one). */
  commits: number;
  cpu: CpuReport;
  timedOut: string | null;
}

/** One phase: `count` requests, open loop at `rate` per second (0: --concurrency closed-loop clients); `ceiling`: measure the chain's ceiling after it. */
interface RelayPhase {
  count: number;
  rate: number;
  ceiling: boolean;
}

async function runRelay({ count, rate, ceiling: withCeiling }: RelayPhase): Promise<RelayResult> {
  const stage = await startProjectOnAnvil({ chainId: 31_800 + Math.floor(Math.random() * 90), blockTime, gasLimit, wallets: walletCount, name: "bench-send-e2e" });
  const { anvil, database, project } = stage;
  const rpcCalls = countRpcCalls(anvil.process.stdout);

  const port = await freePort();
  const gateway = startApp("apps/gateway/src/main.ts", { ...stage.appEnv, PORT: String(port), RATE_LIMIT_PER_MINUTE: "100000000" });
  const txWorkers = Array.from({ length: workers }, () => startApp("apps/tx-worker/src/main.ts", { ...stage.appEnv, ...stage.custodyEnv, TX_CONCURRENCY: String(txConcurrency) }));
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHttp(`${baseUrl}/ready`);

  const pool = createPool({ url: database.url, poolSize: 2 });

  const headers = { "content-type": "application/json", authorization: `Bearer ${project.apiKey}` };
  const target = { projectId: project.projectId, chainId: anvil.chainId, contractAddress: stage.recorderAddress };
  const body = (i: number) => sendTransactionBody(target, call, i, randomUUID());
  const url = `${baseUrl}/transact/sendTransaction`;

  // Warm-up: a few transactions to final status, so the workers are up, JIT-compiled and have
  // their caches and connections; they are not counted (the measured set is created after t0).
  const warmUp = walletCount * 2;
  const warmUpStart = new Date(Date.now() - 1000);
  await fixedCount({ url, concurrency: Math.min(clients, warmUp), count: warmUp, headers, body: (i) => body(count + i) });
  await waitUntilFinal(pool, warmUpStart, warmUp, 120_000);
  await new Promise((r) => setTimeout(r, 1000)); // the warm-up's last timestamps are well before t0

  const machine = machineMeter();
  const meter = cpuMeter({
    gateway: [gateway.pid!],
    [`tx-worker${workers > 1 ? `s (${workers})` : ""}`]: txWorkers.map((w) => w.pid!),
    "anvil": [anvil.process.pid!],
    "postgres backends (this db)": postgresBackendsOf(database.name),
    "postgres wal writer, bgwriter, ckpt": postgresBackground,
    redis: /^redis-server/,
    "bench process (load, polls, anvil log)": [process.pid],
  });
  const commits = async () =>
    Number((await pool.query<{ n: string }>(`select xact_commit as n from pg_stat_database where datname = $1`, [database.name])).rows[0]?.n ?? 0);
  const commitsBefore = await commits();
  const observerProvider = benchProvider(anvil);
  rpcCalls.start();
  const observer = observeChain(observerProvider);
  machine.start();
  meter.start();
  const t0 = new Date();
  const p0 = performance.now();

  let ingressDone: FixedLoadResult | undefined;
  const load = rate > 0 ? fixedRate({ url, rate, count, headers, body }) : fixedCount({ url, concurrency: clients, count, headers, body });
  const ingress = load.then((r) => (ingressDone = r));
  let statuses: Record<string, number> = {};
  let lastProgress = { final: -1, at: Date.now() };
  let lastPrint = 0;
  let timedOut: string | null = null;
  for (;;) {
    // Once a second: the result comes from the records' own timestamps, not from when this
    // poll saw them, and each poll counts the whole table (Postgres CPU charged to the relay).
    await new Promise((r) => setTimeout(r, 1000));
    statuses = await statusCounts(pool, t0);
    const final = finalCount(statuses);
    const now = Date.now();
    if (final !== lastProgress.final) lastProgress = { final, at: now };
    if (now - lastPrint >= 5000) {
      lastPrint = now;
      process.stderr.write(`  relay t=${seconds(performance.now() - p0)} s ingress ${ingressDone ? "done" : "running"} ${JSON.stringify(statuses)}\n`);
    }
    if (ingressDone) {
      const accepted = ingressDone.statuses[200] ?? 0;
      if (final >= accepted) break;
    }
    if (now - lastProgress.at > STALL_SECONDS * 1000) {
      timedOut = `no transaction reached a final status for ${STALL_SECONDS} s`;
      break;
    }
    if (now - t0.getTime() > timeoutSeconds * 1000) {
      timedOut = `--timeout ${timeoutSeconds} s reached`;
      break;
    }
  }
  const groups = meter.stop();
  const machineSecs = machine.stop();
  const wallSeconds = (performance.now() - p0) / 1000;
  const ingressResult = await ingress;
  await observer.stop();
  const calls = rpcCalls.stop();
  observerProvider.destroy();

  await new Promise((r) => setTimeout(r, 1500)); // Postgres publishes backend statistics about once a second
  const commitsDuring = (await commits()) - commitsBefore;
  const msSinceT0 = (d: Date | null) => (d === null ? null : d.getTime() - t0.getTime());
  const { rows: [times] } = await pool.query<{ first_confirmed: Date | null; last_confirmed: Date | null; last_submitted: Date | null }>(
    `select min(c.created_at) filter (where c.status = 'CONFIRMED') as first_confirmed,
            max(c.created_at) filter (where c.status = 'CONFIRMED') as last_confirmed,
            max(c.created_at) filter (where c.status = 'SUBMITTED') as last_submitted
       from transaction_status_change c join "transaction" t on t.project_id = c.project_id and t.id = c.transaction_id
      where t.created_at >= $1`,
    [t0],
  );
  const latencies = await acceptLatencies(pool, t0);
  const { rows: [replacedRow] } = await pool.query<{ n: string }>(
    `select count(*) as n from (select a.transaction_id from transaction_attempt a join "transaction" t on t.project_id = a.project_id and t.id = a.transaction_id
      where t.created_at >= $1 group by a.transaction_id having count(*) > 1) x`,
    [t0],
  );
  const { rows: notConfirmed } = await pool.query<RelayResult["notConfirmed"][number]>(
    `select id, status, error, from_address as "from", nonce::text as nonce, hash from "transaction" where created_at >= $1 and status <> 'CONFIRMED' order by created_at limit 20`,
    [t0],
  );
  await pool.end();

  const peakRss: Record<string, number> = { gateway: peakRssMiB(gateway.pid!) };
  txWorkers.forEach((w, i) => (peakRss[`tx-worker ${i + 1}`] = peakRssMiB(w.pid!)));
  await Promise.all([stopApp(gateway), ...txWorkers.map(stopApp)]);
  // The chain's ceiling on the same node, now that the relay is stopped: fresh wallets, the same
  // calls (ids past the relay's, so each writes fresh slots as the relay's did).
  const iface = new Interface([RECORDER_CALLS[call]]);
  const ceiling =
    baselines === "ethers" || !withCeiling
      ? null
      : await measureCeiling(anvil, {
          count,
          wallets: walletCount,
          to: stage.recorderAddress,
          data: (i) => iface.encodeFunctionData(call, ethersArgs(2 * count + i)),
          timeoutMs: timeoutSeconds * 1000,
        });
  await stage.release();

  const blocks = blockStats(observer.blocks);
  return {
    ingress: ingressResult,
    accepted: ingressResult.statuses[200] ?? 0,
    statuses,
    firstConfirmedMs: msSinceT0(times?.first_confirmed ?? null),
    lastConfirmedMs: msSinceT0(times?.last_confirmed ?? null),
    lastSubmittedMs: msSinceT0(times?.last_submitted ?? null),
    pendingToSubmitted: latencies.toBroadcast,
    submittedToConfirmed: latencies.broadcastToConfirmed,
    acceptedToConfirmed: latencies.toConfirmed,
    peakRss,
    ceiling,
    replaced: Number(replacedRow?.n ?? 0),
    notConfirmed,
    blocks,
    lastMinedMs: blocks.last ? blocks.last.seenAt - p0 : null,
    rpc: rpcSummary(calls, observer.ownCalls, Math.max(1, ingressResult.statuses[200] ?? 0)),
    commits: commitsDuring,
    cpu: { groups, machine: machineSecs, cores: machine.cores, wallSeconds },
    timedOut,
  };
}

// ------------------------------------------------------------------------------------------------
// The baseline: ethers v6 directly

interface BaselineResult {
  sent: number;
  sendErrors: string[];
  sendSeconds: number;
  confirmed: number;
  reverted: number;
  missing: number;
  firstMs: number | null;
  lastMs: number | null;
  blocks: ReturnType<typeof blockStats>;
  rpc: string;
  cpu: CpuReport;
}

async function runBaseline(): Promise<BaselineResult> {
  const anvil: AnvilInstance = await startAnvil({ chainId: 32_800 + Math.floor(Math.random() * 90), blockTime, extraArgs: ["--gas-limit", String(gasLimit)] });
  const rpcCalls = countRpcCalls(anvil.process.stdout);
  const recorder = await deployRecorder(anvil.rpcUrl);
  const target = recorder.address;
  recorder.provider.destroy();
  const iface = new Interface([RECORDER_CALLS[call]]);
  const fn = call;

  // What an ethers user writes: one provider (ethers' request batching), the network fixed; ethers
  // fills in the fees (getFeeData) and signs; nonces are ours. No response cache, as in the relay
  // (DESIGN.md): with ethers' default 250 ms cache identical calls (spend(1) from one wallet) would
  // share one eth_estimateGas, and the baseline would skip the per-transaction simulation the relay does.
  const network = Network.from(anvil.chainId);
  const provider = new JsonRpcProvider(anvil.rpcUrl, network, { staticNetwork: network, cacheTimeout: -1 });
  const wallets = Array.from({ length: walletCount }, () => new Wallet(hexlify(randomBytes(32)), provider));
  await fund(anvil, wallets.map((w) => w.address));
  const warmUp = walletCount * 2;
  const data = Array.from({ length: count + warmUp }, (_, i) => iface.encodeFunctionData(fn, ethersArgs(i)));

  // Call i goes from wallet i mod W with that wallet's next nonce, assigned up front; `inFlight`
  // calls at a time, none waits for mining. Gas: eth_estimateGas plus the relay's 20 % headroom
  // (ethers adds none, and Recorder's cost depends on state: the previous caller, fresh slots, so
  // a bare estimate can run out of gas once other transactions land first); fees: ethers' own.
  const hashes: string[] = [];
  const sendErrors: string[] = [];
  const sendAll = async (first: number, end: number, inFlight: number) => {
    let next = first;
    const sender = async () => {
      while (next < end) {
        const i = next++;
        const wallet = wallets[i % walletCount]!;
        try {
          const estimate = await provider.estimateGas({ from: wallet.address, to: target, data: data[i] });
          const tx: TransactionResponse = await wallet.sendTransaction({ to: target, data: data[i], nonce: Math.floor(i / walletCount), gasLimit: (estimate * 120n) / 100n });
          if (i >= warmUp) hashes.push(tx.hash.toLowerCase());
        } catch (e) {
          sendErrors.push(e instanceof Error ? e.message.slice(0, 300) : String(e));
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(inFlight, end - first) }, sender));
  };

  // Warm-up (not measured): two calls per wallet, mined, so JIT and connections are warm.
  await sendAll(0, warmUp, baselineConcurrency);
  const warmUpDeadline = Date.now() + 60_000;
  while ((await Promise.all(wallets.map((w) => provider.getTransactionCount(w.address, "latest")))).some((n) => n < 2)) {
    if (Date.now() > warmUpDeadline) throw new Error("baseline warm-up transactions not mined after 60 s");
    await new Promise((r) => setTimeout(r, 100));
  }
  sendErrors.length = 0;

  const machine = machineMeter();
  const meter = cpuMeter({ anvil: [anvil.process.pid!], "bench process (ethers, anvil log)": [process.pid] });
  const observerProvider = benchProvider(anvil);
  rpcCalls.start();
  const observer = observeChain(observerProvider, { receipts: true });
  machine.start();
  meter.start();
  const p0 = performance.now();
  await sendAll(warmUp, warmUp + count, baselineConcurrency);
  const sendSeconds = (performance.now() - p0) / 1000;

  // Then every receipt: one eth_getBlockReceipts per new block (observeChain).
  const deadline = Date.now() + timeoutSeconds * 1000;
  let lastSeen = { n: -1, at: Date.now() };
  for (;;) {
    const seen = hashes.filter((h) => observer.statuses.has(h)).length;
    if (seen >= hashes.length) break;
    if (seen !== lastSeen.n) lastSeen = { n: seen, at: Date.now() };
    if (Date.now() - lastSeen.at > STALL_SECONDS * 1000 || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const groups = meter.stop();
  const machineSecs = machine.stop();
  const wallSeconds = (performance.now() - p0) / 1000;
  await observer.stop();
  const calls = rpcCalls.stop();
  observerProvider.destroy();
  provider.destroy();
  await anvil.stop();

  const ours = hashes.map((h) => observer.statuses.get(h)).filter((s) => s !== undefined);
  const times = ours.map((s) => s.seenAt - p0);
  return {
    sent: hashes.length,
    sendErrors,
    sendSeconds,
    confirmed: ours.filter((s) => s.status === 1).length,
    reverted: ours.filter((s) => s.status !== 1).length,
    missing: hashes.length - ours.length,
    firstMs: times.length ? Math.min(...times) : null,
    lastMs: times.length ? Math.max(...times) : null,
    blocks: blockStats(observer.blocks),
    rpc: rpcSummary(calls, observer.ownCalls, Math.max(1, hashes.length)),
    cpu: { groups, machine: machineSecs, cores: machine.cores, wallSeconds },
  };
}

// ------------------------------------------------------------------------------------------------

const confirmedRate = (r: RelayResult) => (r.lastConfirmedMs ? (r.statuses.CONFIRMED ?? 0) / (r.lastConfirmedMs / 1000) : 0);
const cpuPerConfirmedMs = (r: RelayResult) => (Object.values(r.cpu.groups).reduce((a, b) => a + b, 0) / Math.max(1, r.statuses.CONFIRMED ?? 0)) * 1000;

async function main() {
  const relay = await runRelay({ count, rate, ceiling: true });
  const relayRate = confirmedRate(relay);
  // Half load: open loop at half the confirmed rate just reached, on a fresh relay and chain.
  const halfRate = relayRate / 2;
  const half = halfLoad && halfRate > 0 ? await runRelay({ count: Math.max(100, Math.round(halfRate * halfSeconds)), rate: halfRate, ceiling: false }) : null;
  const baseline = baselines === "ceiling" ? null : await runBaseline();

  const confirmed = relay.statuses.CONFIRMED ?? 0;
  const baseRate = baseline?.lastMs ? baseline.confirmed / (baseline.lastMs / 1000) : 0;
  const ceilingRate = relay.ceiling?.perSecond ?? 0;
  const fmtMs = (ms: number | null) => (ms === null ? "—" : `${seconds(ms)} s`);
  const blocksLine = (b: ReturnType<typeof blockStats>) =>
    `${b.blocks} blocks carried ${b.transactions} txs: max ${b.maxPerBlock}/block, mean ${b.meanPerBlock.toFixed(0)}; fullest block ${(b.maxFill * 100).toFixed(1)}% of its ${b.gasLimit} gas`;

  process.stdout.write("\n");
  line("settings", `${count} × Recorder.${call} over ${walletCount} wallets; anvil --block-time ${blockTime} --gas-limit ${gasLimit}`);
  line("", `${workers} tx-worker process(es), TX_CONCURRENCY ${txConcurrency}; ${rate > 0 ? `open loop at ${rate} req/s` : `${clients} closed-loop HTTP clients`}; chain confirmations 1`);

  line("relay (gateway + tx-worker processes)", `${relayRate.toFixed(0)} confirmed tx/s (${confirmed} CONFIRMED, first request → last CONFIRMED ${fmtMs(relay.lastConfirmedMs)})`);
  line("  ingress (all requests answered)", `${seconds(relay.ingress.seconds * 1000)} s, ${relay.ingress.perSecond.toFixed(0)} req/s, p50/p99 ${relay.ingress.p50.toFixed(1)}/${relay.ingress.p99.toFixed(1)} ms, statuses ${JSON.stringify(relay.ingress.statuses)}`);
  for (const sample of relay.ingress.errorSamples) line("    non-200 answer", sample);
  line("  first / last CONFIRMED", `${fmtMs(relay.firstConfirmedMs)} / ${fmtMs(relay.lastConfirmedMs)} after the first request`);
  line("  last SUBMITTED (broadcast)", fmtMs(relay.lastSubmittedMs));
  line("  last block with a tx seen", fmtMs(relay.lastMinedMs));
  if (relay.pendingToSubmitted) line("  accept → broadcast (SUBMITTED) p50 / p99", `${seconds(relay.pendingToSubmitted.p50)} / ${seconds(relay.pendingToSubmitted.p99)} s`);
  if (relay.submittedToConfirmed) line("  SUBMITTED → CONFIRMED p50 / p99", `${seconds(relay.submittedToConfirmed.p50)} / ${seconds(relay.submittedToConfirmed.p99)} s`);
  if (relay.acceptedToConfirmed) line("  accept → CONFIRMED p50 / p99", `${seconds(relay.acceptedToConfirmed.p50)} / ${seconds(relay.acceptedToConfirmed.p99)} s`);
  line("  peak RSS (VmHWM)", Object.entries(relay.peakRss).map(([name, mib]) => `${name} ${mib.toFixed(0)} MiB`).join(", "));
  line("  blocks", blocksLine(relay.blocks));
  line("  transactions with a replacement", String(relay.replaced));
  line("  JSON-RPC calls per transaction", relay.rpc);
  line("  Postgres commits per transaction", `${(relay.commits / Math.max(1, relay.accepted)).toFixed(1)} (every statement of the gateway and workers, plus this benchmark's polling, 1/s)`);
  line("  statuses at the end", JSON.stringify(relay.statuses));
  if (relay.timedOut) line("  STOPPED EARLY", relay.timedOut);
  const missing = relay.accepted - Object.values(relay.statuses).reduce((a, b) => a + b, 0);
  if (missing !== 0) line("  accepted but not in the database", String(missing));
  for (const tx of relay.notConfirmed) line("  NOT CONFIRMED", `${tx.id} ${tx.status} from ${tx.from} nonce ${tx.nonce} hash ${tx.hash} ${tx.error ?? ""}`);
  printCpu(relay.cpu, confirmed);

  if (half) {
    const halfConfirmed = half.statuses.CONFIRMED ?? 0;
    const latency = (l: { p50: number; p99: number } | null) => (l ? `${seconds(l.p50)} / ${seconds(l.p99)} s` : "—");
    line("half load (open loop, fresh relay and chain)", `${halfRate.toFixed(0)} req/s offered for ${halfSeconds} s: ${confirmedRate(half).toFixed(0)} confirmed tx/s (${halfConfirmed} of ${half.accepted} CONFIRMED)`);
    line("  accept → broadcast (SUBMITTED) p50 / p99", latency(half.pendingToSubmitted));
    line("  SUBMITTED → CONFIRMED p50 / p99", latency(half.submittedToConfirmed));
    line("  accept → CONFIRMED p50 / p99", latency(half.acceptedToConfirmed));
    line("  CPU per confirmed tx, all processes", `${cpuPerConfirmedMs(half).toFixed(1)} ms`);
    line("  peak RSS (VmHWM)", Object.entries(half.peakRss).map(([name, mib]) => `${name} ${mib.toFixed(0)} MiB`).join(", "));
    if (half.timedOut) line("  STOPPED EARLY", half.timedOut);
  }

  const { ceiling } = relay;
  if (ceiling) {
    line("ceiling (pre-signed, pushed to the same anvil)", `${ceilingRate.toFixed(0)} mined tx/s (${ceiling.mined} of ${ceiling.pushed} mined, first push → last receipt ${seconds(ceiling.seconds * 1000)} s)`);
    for (const e of ceiling.refused) line("    refused", e);
    line("  blocks", blocksLine(ceiling.blocks));
  }
  if (baseline) {
    line("baseline (ethers v6 directly)", `${baseRate.toFixed(0)} confirmed tx/s (${baseline.confirmed} status 1, first send → last receipt ${fmtMs(baseline.lastMs)})`);
    line("  all sendTransaction calls returned", `${seconds(baseline.sendSeconds * 1000)} s (${baseline.sent} sent, ${baseline.sendErrors.length} refused; ${baselineConcurrency} in flight)`);
    for (const e of baseline.sendErrors.slice(0, 5)) line("    refused", e);
    line("  first / last receipt", `${fmtMs(baseline.firstMs)} / ${fmtMs(baseline.lastMs)}`);
    if (baseline.reverted || baseline.missing) line("  NOT CONFIRMED", `${baseline.reverted} reverted, ${baseline.missing} without a receipt`);
    line("  blocks", blocksLine(baseline.blocks));
    line("  JSON-RPC calls per transaction", baseline.rpc);
    printCpu(baseline.cpu, baseline.confirmed);
  }

  if (ceiling) line("ratio relay / ceiling", ceilingRate ? (relayRate / ceilingRate).toFixed(2) : "—");
  if (baseline) line("ratio relay / ethers baseline", baseRate ? (relayRate / baseRate).toFixed(2) : "—");
  const allConfirmed = confirmed === count && !relay.timedOut && (!half || ((half.statuses.CONFIRMED ?? 0) === half.accepted && !half.timedOut));
  const cpuPerTxMs = cpuPerConfirmedMs(relay);
  // Latency targets are meant at half load: the half-load phase's when it ran, else this run's (--rate).
  const atHalf = half ?? (rate > 0 ? relay : null);
  const targets: [string, boolean | null][] = [
    [`confirmed tx/s >= 0.6 × the ceiling (${(0.6 * ceilingRate).toFixed(0)})`, ceiling ? relayRate >= 0.6 * ceilingRate : null],
    [`SUBMITTED → CONFIRMED p50 <= one block + 500 ms (${blockTime * 1000 + 500} ms)`, relay.submittedToConfirmed ? relay.submittedToConfirmed.p50 <= blockTime * 1000 + 500 : null],
    [`accept → broadcast p50 < 300 ms at half load`, atHalf?.pendingToSubmitted ? atHalf.pendingToSubmitted.p50 < 300 : null],
    ["CPU per confirmed tx <= 3 ms over all processes (meant at 100 tx/s: --rate 100)", cpuPerTxMs <= 3],
    ["peak RSS: gateway <= 200 MiB, each tx-worker <= 250 MiB", Object.entries(relay.peakRss).every(([name, mib]) => mib <= (name === "gateway" ? 200 : 250))],
    ["all CONFIRMED", allConfirmed],
  ];
  for (const [what, met] of targets) line("target", `${what}: ${met === null ? "not measured" : met ? "met" : "NOT met"} in this run`);
  line("what bounds it (this run)", diagnose(relay, relayRate, baseline, ceilingRate || baseRate));
  process.exit(allConfirmed ? 0 : 2);
}

/** A first reading of the numbers; the person reporting checks it against the lines above. */
function diagnose(relay: RelayResult, relayRate: number, baseline: BaselineResult | null, baseRate: number): string {
  const notes: string[] = [];
  const { cpu } = relay;
  const confirmed = Math.max(1, relay.statuses.CONFIRMED ?? 0);
  const share = (s: number) => s / cpu.wallSeconds;
  const machineBusy = share(cpu.machine) / cpu.cores;
  const ours = Object.values(cpu.groups).reduce((a, b) => a + b, 0);
  const ranked = Object.entries(cpu.groups).sort((a, b) => b[1] - a[1]);
  const cpuPerTx = ours / confirmed;
  notes.push(
    relay.blocks.maxFill > 0.9
      ? `BLOCKS: the fullest was ${(relay.blocks.maxFill * 100).toFixed(0)}% of the gas limit`
      : `not blocks (fullest ${(relay.blocks.maxFill * 100).toFixed(1)}% of the gas limit, at most ${relay.blocks.maxPerBlock} txs in one)`,
  );
  notes.push(
    `node: anvil used ${(share(cpu.groups.anvil ?? 0) * 100).toFixed(0)}% of a core` +
      (baseRate > 0 ? `; the same anvil setup took ${baseRate.toFixed(0)} tx/s ${relay.ceiling ? "pre-signed" : "from ethers directly"} (${(baseRate / Math.max(1, relayRate)).toFixed(1)}× the relay)` : ""),
  );
  notes.push(
    `CPU: ${(cpuPerTx * 1000).toFixed(1)} ms of CPU per confirmed transaction over the processes measured, i.e. at most ~${(cpu.cores / cpuPerTx).toFixed(0)} tx/s on ${cpu.cores} cores; the machine was ${(machineBusy * 100).toFixed(0)}% busy; ` +
      ranked
        .slice(0, 3)
        .map(([name, secs]) => `${name} ${(share(secs) * 100).toFixed(0)}% of a core (${((secs / confirmed) * 1000).toFixed(1)} ms/tx)`)
        .join(", "),
  );
  const anvilPerTx = (cpu.groups.anvil ?? 0) / confirmed;
  notes.push(
    `budget: 500 tx/s on ${cpu.cores} cores leaves ${((cpu.cores / 500) * 1000).toFixed(1)} ms of CPU per transaction for everything, anvil's share included (${(anvilPerTx * 1000).toFixed(1)} ms/tx here, for ${relay.rpc.split(",").length} JSON-RPC methods per tx and its per-call log line)`,
  );
  const benchShare = Object.entries(baseline?.cpu.groups ?? {}).find(([name]) => name.startsWith("bench process"))?.[1] ?? 0;
  if (baseline && benchShare / baseline.cpu.wallSeconds > 0.8) {
    notes.push(`the ethers baseline is itself CPU-bound: its one Node process (ethers: populate, sign, JSON-RPC) used ${((benchShare / baseline.cpu.wallSeconds) * 100).toFixed(0)}% of a core, ${((benchShare / Math.max(1, baseline.confirmed)) * 1000).toFixed(1)} ms/tx`);
  }
  const busiest = ranked[0];
  if (busiest && share(busiest[1]) > 0.9 && !/\(\d+\)/.test(busiest[0])) notes.push(`${busiest[0]} is near one full core: a single Node event loop is saturated there`);
  if (relay.pendingToSubmitted && relay.submittedToConfirmed) {
    notes.push(`per transaction: accepted → SUBMITTED p50 ${seconds(relay.pendingToSubmitted.p50)} s (queue wait + worker), SUBMITTED → CONFIRMED p50 ${seconds(relay.submittedToConfirmed.p50)} s (block time + next receipt check)`);
  }
  return notes.join(";\n" + " ".repeat(45));
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
