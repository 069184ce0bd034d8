/**
 * Signed webhook deliveries per second through outbox → dispatcher → BullMQ → webhook worker →
 * receiver → Postgres (DELIVERED + stats entry), beside a baseline that signs the same bodies and
 * POSTs them with the same HTTP client, without queue or database, in the same run.
 *
 *   pnpm bench:webhook-delivery [--count 10000] [--concurrency 64] [--workers 1]
 *
 * N TransactionStatusChange events (one transaction each, so no delivery waits for another) are
 * written to the outbox in one statement before the worker starts; the clock runs from starting
 * the worker process(es) to the poll that sees all N deliveries DELIVERED. `--concurrency` is
 * WEBHOOK_CONCURRENCY per worker process; the baseline keeps concurrency × workers in flight.
 * The receiver is a bare node:http server in its own process that answers 200 at once.
 */
import { randomBytes } from "node:crypto";
import { createDatabase, createEventCallbackRepository, createPool } from "@relay/db";
import { createProjectFixture, createTestDatabase, testKek, testQueuePrefix } from "@relay/testing";
import { flag, line, numberArg } from "./lib/args";
import { cpuMeter } from "./lib/cpu";
import { machineMeter } from "./lib/machine";
import { startApp, stopApp, waitForHttp } from "./lib/processes";
import { deleteQueueKeys, freePort, postgresBackendsOf, postgresBackground } from "./lib/relay";
import { webhooks } from "./lib/webhooks";

const count = numberArg("count", 10_000);
const concurrency = numberArg("concurrency", 64);
const workers = numberArg("workers", 1);
const keep = flag("keep-database");
const POLL_MS = 50;

interface ReceiverCount {
  requests: number;
  distinct: number;
  unsigned: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const { createSafeHttpClient, generateWebhookSecret, sealWebhookSecret, signDelivery } = webhooks;
  const database = await createTestDatabase({ migrate: true });
  const prefix = testQueuePrefix("bench-webhook");
  const pool = createPool({ url: database.url, poolSize: 2 });
  const db = createDatabase({ pool });

  // The receiver, in its own process.
  const receiverPort = await freePort();
  const receiver = startApp("bench/lib/webhook-receiver.ts", { PORT: String(receiverPort) });
  const receiverUrl = `http://127.0.0.1:${receiverPort}`;
  await waitForHttp(`${receiverUrl}/count`);
  const received = async (): Promise<ReceiverCount> => (await (await fetch(`${receiverUrl}/count`)).json()) as ReceiverCount;

  // A project with one TransactionStatusChange registration, its secret sealed under the key the
  // worker gets as WEBHOOK_SECRET_KEY.
  const webhookKey = randomBytes(32);
  const keyring = { activeKeyId: "bench", keys: new Map([["bench", webhookKey]]) };
  const secret = generateWebhookSecret();
  const project = await createProjectFixture(db, testKek(), { wallets: 0 });
  const callbackUrl = `${receiverUrl}/hooks`;
  const registration = await createEventCallbackRepository({ sql: pool, db }).create({
    projectId: project.projectId,
    eventType: "TransactionStatusChange",
    callbackUrl,
    sealSecret: (id) => sealWebhookSecret(keyring, id, secret),
  });

  // N outbox events in one statement, shaped like the ones a status change writes
  // (packages/db/src/transactions/status-change-event.ts): one transaction each.
  await pool.query(
    `INSERT INTO event (id, project_id, event_type, subject, payload, created_at)
     SELECT x.id, $1::uuid, 'TransactionStatusChange'::"EventType", x.tx::text,
            jsonb_build_object(
              'id', x.id,
              'eventType', 'TransactionStatusChange',
              'projectId', $1::uuid,
              'createdAt', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
              'data', jsonb_build_object(
                'transactionId', x.tx,
                'chainId', 31337,
                'status', 'CONFIRMED',
                'previousStatus', 'SUBMITTED',
                'hash', '0x' || encode(sha256(int4send(x.i)), 'hex'),
                'blockNumber', (1000 + x.i / 50)::text,
                'from', '0x' || substr(encode(sha256(int4send(x.i % 16)), 'hex'), 1, 40),
                'nonce', (x.i / 16)::text,
                'reason', NULL)),
            now()
       FROM (SELECT gen_random_uuid() AS id, gen_random_uuid() AS tx, i FROM generate_series(1, $2::int) AS i) x`,
    [project.projectId, count],
  );
  // The baseline's bodies: the payloads as the worker reads and serializes them.
  const bodies = (await pool.query<{ id: string; payload: unknown }>(`SELECT id, payload FROM event ORDER BY created_at, id`)).rows.map((r) => ({
    id: r.id,
    body: JSON.stringify(r.payload),
  }));
  await pool.query(`ANALYZE event`);

  // ---- the relay: worker process(es) from start to all N DELIVERED ----
  const env = {
    DATABASE_URL: database.url,
    QUEUE_PREFIX: prefix,
    WEBHOOK_SECRET_KEY: webhookKey.toString("base64"),
    WEBHOOK_SECRET_KEY_ID: "bench",
    WEBHOOK_ALLOW_PRIVATE: "true",
    WEBHOOK_CONCURRENCY: String(concurrency),
    LOG_LEVEL: "warn",
  };
  const machine = machineMeter();
  const receivedBefore = await received();
  const started = performance.now();
  machine.start();
  const procs = Array.from({ length: workers }, () => startApp("apps/webhook-worker/src/main.ts", env));
  const meter = cpuMeter({
    "webhook worker(s)": procs.map((p) => p.pid!),
    receiver: [receiver.pid!],
    "postgres (this database's backends)": postgresBackendsOf(database.name),
    "postgres (WAL writer, checkpointer, bgwriter)": postgresBackground,
    redis: /^redis-server/,
    "bench process (poller)": [process.pid],
  });
  meter.start();

  const deadline = started + Math.max(120_000, count * 20);
  let firstDispatchAt: number | undefined;
  let cpuAtFirstDispatch: Record<string, number> = {};
  let delivered = 0;
  while (true) {
    for (const p of procs) if (p.exitCode !== null) throw new Error(`a webhook worker exited with code ${p.exitCode}`);
    if (firstDispatchAt === undefined) {
      const { rows } = await pool.query<{ any: boolean }>(`SELECT EXISTS (SELECT 1 FROM event WHERE dispatched_at IS NOT NULL) AS any`);
      if (rows[0]?.any) {
        firstDispatchAt = performance.now();
        cpuAtFirstDispatch = meter.stop();
      }
    } else {
      const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_delivery WHERE status = 'DELIVERED'`);
      delivered = rows[0]?.n ?? 0;
      if (delivered >= count) break;
    }
    if (performance.now() > deadline) throw new Error(`only ${delivered} of ${count} delivered after ${((performance.now() - started) / 1000).toFixed(0)} s`);
    await sleep(firstDispatchAt === undefined ? 20 : POLL_MS);
  }
  const done = performance.now();
  const cpu = meter.stop();
  const machineBusy = machine.stop();
  const receivedRelay = await received();
  await Promise.all(procs.map(stopApp));

  const { rows: summary } = await pool.query<{
    deliveries: number;
    delivered: number;
    attempts: number;
    p50: number;
    p90: number;
    p99: number;
    max: number;
    dp50: number;
    dp99: number;
    drainSeconds: number;
  }>(
    `SELECT count(*)::int AS deliveries,
            count(*) FILTER (WHERE d.status = 'DELIVERED')::int AS delivered,
            sum(d.attempts)::int AS attempts,
            (extract(epoch FROM percentile_disc(0.50) WITHIN GROUP (ORDER BY d.delivered_at - e.created_at)) * 1000)::float8 AS p50,
            (extract(epoch FROM percentile_disc(0.90) WITHIN GROUP (ORDER BY d.delivered_at - e.created_at)) * 1000)::float8 AS p90,
            (extract(epoch FROM percentile_disc(0.99) WITHIN GROUP (ORDER BY d.delivered_at - e.created_at)) * 1000)::float8 AS p99,
            (extract(epoch FROM max(d.delivered_at - e.created_at)) * 1000)::float8 AS max,
            (extract(epoch FROM percentile_disc(0.50) WITHIN GROUP (ORDER BY d.delivered_at - e.dispatched_at)) * 1000)::float8 AS dp50,
            (extract(epoch FROM percentile_disc(0.99) WITHIN GROUP (ORDER BY d.delivered_at - e.dispatched_at)) * 1000)::float8 AS dp99,
            extract(epoch FROM max(d.delivered_at) - min(e.dispatched_at))::float8 AS "drainSeconds"
       FROM webhook_delivery d JOIN event e ON e.id = d.event_id`,
  );
  const s = summary[0]!;
  const { rows: statRows } = await pool.query<{ entries: number; ok: number; deliveries: number }>(
    `SELECT count(*)::int AS entries, count(*) FILTER (WHERE response_status = 200)::int AS ok, count(DISTINCT delivery_id)::int AS deliveries
       FROM event_callback_stat WHERE event_callback_id = $1`,
    [registration.id],
  );
  const stats = statRows[0]!;

  // ---- the baseline: the same bodies, signed and POSTed with the same client, no queue ----
  const inFlight = concurrency * workers;
  const http = createSafeHttpClient({ allowPrivateNetworks: true });
  const baselineMeter = cpuMeter({ receiver: [receiver.pid!], "bench process (baseline client)": [process.pid] });
  const receivedBeforeBaseline = await received();
  const statuses: Record<number, number> = {};
  let next = 0;
  baselineMeter.start();
  const baselineStarted = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(inFlight, count) }, async () => {
      while (next < bodies.length) {
        const { id, body } = bodies[next++]!;
        const headers = signDelivery({ secret, msgId: id, timestamp: new Date(), body });
        const result = await http.post(callbackUrl, body, { ...headers });
        statuses[result.status] = (statuses[result.status] ?? 0) + 1;
      }
    }),
  );
  const baselineSeconds = (performance.now() - baselineStarted) / 1000;
  const baselineCpu = baselineMeter.stop();
  const receivedBaseline = await received();

  await stopApp(receiver);
  await db.$disconnect();
  if (!pool.ended) await pool.end();
  await deleteQueueKeys(prefix);
  if (keep) process.stderr.write(`database kept: ${database.url}\n`);
  else await database.drop();

  // ---- report ----
  const wallSeconds = (done - started) / 1000;
  const startupSeconds = ((firstDispatchAt ?? done) - started) / 1000;
  const relayRate = count / wallSeconds;
  const drainRate = count / s.drainSeconds;
  const baselineRate = count / baselineSeconds;
  const baselineOk = statuses[200] ?? 0;
  const relayRequests = receivedRelay.requests - receivedBefore.requests;
  const baselineRequests = receivedBaseline.requests - receivedBeforeBaseline.requests;

  line("events / workers / concurrency", `${count} events, ${workers} worker process(es) × WEBHOOK_CONCURRENCY ${concurrency}; baseline ${inFlight} in flight`);
  line("relay: worker start → all DELIVERED", `${wallSeconds.toFixed(2)} s = ${relayRate.toFixed(0)} deliveries/s`);
  line("  of which worker start → first dispatch", `${startupSeconds.toFixed(2)} s (process start, tsx, connections)`);
  line("  first dispatch → last delivered (DB clock)", `${s.drainSeconds.toFixed(2)} s = ${drainRate.toFixed(0)} deliveries/s`);
  line("  deliveries / DELIVERED / attempts", `${s.deliveries} / ${s.delivered} / ${s.attempts}`);
  line("  stats entries (200) / distinct deliveries", `${stats.entries} (${stats.ok}) / ${stats.deliveries}`);
  line("  receiver: requests / distinct ids / unsigned", `${relayRequests} / ${receivedRelay.distinct - receivedBefore.distinct} / ${receivedRelay.unsigned - receivedBefore.unsigned}`);
  line("  event created → delivered p50/p90/p99/max", `${s.p50.toFixed(0)} / ${s.p90.toFixed(0)} / ${s.p99.toFixed(0)} / ${s.max.toFixed(0)} ms (all N queued at t0)`);
  line("  event dispatched → delivered p50/p99", `${s.dp50.toFixed(0)} / ${s.dp99.toFixed(0)} ms`);
  const drain = (name: string) => (cpu[name] ?? 0) - (cpuAtFirstDispatch[name] ?? 0);
  for (const name of Object.keys(cpu)) {
    line(
      `  CPU ${name}`,
      `${(cpu[name]! * 1000).toFixed(0)} ms in all; during the drain ${((drain(name) / s.drainSeconds) * 100).toFixed(0)}% of a core, ${((drain(name) / count) * 1e6).toFixed(0)} µs per delivery`,
    );
  }
  const ours = Object.values(cpu).reduce((a, b) => a + b, 0);
  line("  machine busy (all processes)", `${((machineBusy / wallSeconds) * 100).toFixed(0)}% of ${machine.cores} cores; not ours: ${(((machineBusy - ours) / wallSeconds) * 100).toFixed(0)}% of a core`);
  line("baseline: sign + POST, no queue, no DB", `${baselineSeconds.toFixed(2)} s = ${baselineRate.toFixed(0)} deliveries/s (${baselineOk} × 200 ${JSON.stringify(statuses)}; receiver saw ${baselineRequests})`);
  for (const [name, secs] of Object.entries(baselineCpu)) {
    line(`  CPU ${name}`, `${((secs / baselineSeconds) * 100).toFixed(0)}% of a core, ${((secs / count) * 1e6).toFixed(0)} µs per delivery`);
  }
  line("ratio relay / baseline", `${(relayRate / baselineRate).toFixed(2)} (worker start → all delivered); ${(drainRate / baselineRate).toFixed(2)} (drain only)`);
  // Steady state against steady state: the baseline is timed from its first POST, so the relay is
  // timed from its first dispatch (its process start is shown above, not counted here).
  const met = drainRate >= 1000 && drainRate / baselineRate >= 0.5;
  line("target", `>= 1000 deliveries/s and >= 0.5 of the baseline, steady state: ${met ? "met" : "NOT met"} in this run`);

  const complete = s.delivered === count && stats.ok >= count && baselineOk === count;
  if (!complete) process.stderr.write("INCOMPLETE: not every delivery, stats entry or baseline request succeeded\n");
  process.exit(complete ? 0 : 1);
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
