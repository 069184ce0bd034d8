/**
 * Personal-sign throughput and latency through gateway → BullMQ → signing worker → Postgres, at
 * 50 concurrent clients, beside raw `ethers.Wallet.signMessage` in the same run.
 *
 *   pnpm bench:personal-sign [--seconds 20] [--concurrency 50] [--workers 1]
 *
 * The gateway and the signing worker run as separate processes, as in production; everything
 * (load generator, Postgres, Redis) shares this machine's cores.
 */
import { randomBytes } from "node:crypto";
import { Wallet } from "ethers";
import { createDatabase } from "@relay/db";
import { createProjectFixture, createTestDatabase, testQueuePrefix } from "@relay/testing";
import { closedLoop } from "./lib/load";
import { startApp, stopApp, waitForHttp } from "./lib/processes";
import { cpuMeter } from "./lib/cpu";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const seconds = arg("seconds", 20);
const concurrency = arg("concurrency", 50);
const workers = arg("workers", 1);

async function rawSigning(durationMs: number): Promise<number> {
  const wallet = Wallet.createRandom();
  const message = new TextEncoder().encode("benchmark message");
  let n = 0;
  const end = performance.now() + durationMs;
  while (performance.now() < end) {
    await wallet.signMessage(message);
    n++;
  }
  return n / (durationMs / 1000);
}

async function main() {
  const database = await createTestDatabase({ migrate: true });
  const prefix = testQueuePrefix("bench-sign");
  const kekBytes = randomBytes(32);
  const db = createDatabase({ url: database.url });
  const project = await createProjectFixture(db, { activeKeyId: "bench", keys: new Map([["bench", kekBytes]]) }, { wallets: 1 });
  await db.$disconnect();

  const port = 3900 + Math.floor(Math.random() * 90);
  const env = {
    DATABASE_URL: database.url,
    QUEUE_PREFIX: prefix,
    PORT: String(port),
    RATE_LIMIT_PER_MINUTE: "100000000",
    KEY_ENCRYPTION_KEY: kekBytes.toString("base64"),
    KEY_ENCRYPTION_KEY_ID: "bench",
  };
  const { KEY_ENCRYPTION_KEY: _kek, ...gatewayEnv } = env;
  const gateway = startApp("apps/gateway/src/main.ts", gatewayEnv);
  const signers = Array.from({ length: workers }, () => startApp("apps/signing-worker/src/main.ts", env));
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHttp(`${baseUrl}/ready`);

  const load = (s: number) =>
    closedLoop({
      url: `${baseUrl}/wallet/project/${project.projectId}/personalSign`,
      concurrency,
      seconds: s,
      headers: { "content-type": "application/json", authorization: `Bearer ${project.apiKey}` },
      body: (i) => JSON.stringify({ signerAddress: project.wallets[0]!.address, message: `benchmark message ${i}` }),
    });

  await load(3); // warm-up: JIT, connection pools, key cache
  const meter = cpuMeter({
    gateway: [gateway.pid!],
    "signing worker(s)": signers.map((s) => s.pid!),
    "load generator": [process.pid],
    redis: /^redis-server/,
    postgres: /^postgres: /,
  });
  meter.start();
  const relay = await load(seconds);
  const cpu = meter.stop();
  const raw = await rawSigning(5000);

  await Promise.all([stopApp(gateway), ...signers.map(stopApp)]);
  await database.drop();

  const line = (label: string, value: string) => process.stdout.write(`${label.padEnd(34)} ${value}\n`);
  line("concurrency / duration", `${concurrency} clients / ${relay.seconds.toFixed(1)} s, ${workers} signing worker(s)`);
  line("relay personal-sign", `${relay.perSecond.toFixed(0)} req/s (${relay.requests} requests, ${relay.errors} non-200 ${JSON.stringify(relay.statuses)})`);
  line("relay latency p50 / p90 / p99 / max", `${relay.p50.toFixed(1)} / ${relay.p90.toFixed(1)} / ${relay.p99.toFixed(1)} / ${relay.max.toFixed(1)} ms`);
  line("raw ethers signMessage (1 core)", `${raw.toFixed(0)} ops/s`);
  line("ratio relay / raw", (relay.perSecond / raw).toFixed(2));
  for (const [name, secs] of Object.entries(cpu)) {
    line(`  CPU ${name}`, `${((secs / relay.seconds) * 100).toFixed(0)}% of a core, ${((secs / relay.requests) * 1e6).toFixed(0)} µs per request`);
  }
  line("target", ">= 1000 req/s, p99 < 50 ms");
  process.exit(0);
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
