import { Writable } from "node:stream";
import { createLogger } from "@relay/core";
import { createMetricsRegistry, jobMetrics, scrapedGauges, serveMetrics, serveWorkerMetrics } from "./index";

const logger = createLogger({ name: "test", level: "silent", destination: new Writable({ write: (_c, _e, done) => done() }) });

/** The value of one sample line, or undefined. */
const sample = (text: string, series: string): number | undefined => {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe("gauges read from shared state at scrape time", () => {
  it("reads each source once per scrape, however many gauges it feeds, and shows the current rows", async () => {
    const registry = createMetricsRegistry({ processMetrics: false });
    let reads = 0;
    let rows = [{ chain: "1", balance: 5, low: false }];
    scrapedGauges(registry, { name: "balances", logger, read: async () => (reads++, rows) }, [
      { name: "t_balance", help: "b", labelNames: ["chain"], labels: (r) => ({ chain: r.chain }), value: (r) => r.balance },
      { name: "t_low", help: "l", labelNames: ["chain"], labels: (r) => ({ chain: r.chain }), value: (r) => (r.low ? 1 : 0) },
    ]);
    const first = await registry.metrics();
    expect(reads).toBe(1);
    expect(sample(first, 't_balance{chain="1"}')).toBe(5);
    expect(sample(first, 't_low{chain="1"}')).toBe(0);
    expect(sample(first, 'relay_scrape_source_up{source="balances"}')).toBe(1);

    rows = [{ chain: "2", balance: 7, low: true }];
    const second = await registry.metrics();
    expect(reads).toBe(2);
    expect(sample(second, 't_balance{chain="1"}')).toBeUndefined(); // gone from the state, gone from the scrape
    expect(sample(second, 't_balance{chain="2"}')).toBe(7);
    expect(sample(second, 't_low{chain="2"}')).toBe(1);
  });

  it("leaves a failing or silent source's gauges empty and marks it down, while the scrape and other sources still answer", async () => {
    const registry = createMetricsRegistry({ processMetrics: false });
    let failing = true;
    scrapedGauges(
      registry,
      { name: "flaky", logger, read: async () => (failing ? Promise.reject(new Error("connection refused")) : [{ n: 3 }]) },
      [{ name: "t_flaky", help: "f", labelNames: ["k"], labels: () => ({ k: "v" }), value: (r) => r.n }],
    );
    let silentReads = 0;
    scrapedGauges(registry, { name: "silent", logger, timeoutMs: 50, read: () => (silentReads++, new Promise<{ n: number }[]>(() => undefined)) }, [
      { name: "t_silent", help: "s", labelNames: ["k"], labels: () => ({ k: "v" }), value: (r) => r.n },
    ]);
    scrapedGauges(registry, { name: "fine", logger, read: async () => [{ n: 1 }] }, [{ name: "t_fine", help: "x", labelNames: ["k"], labels: () => ({ k: "v" }), value: (r) => r.n }]);

    const down = await registry.metrics();
    expect(sample(down, 't_flaky{k="v"}')).toBeUndefined();
    expect(sample(down, 't_silent{k="v"}')).toBeUndefined();
    expect(sample(down, 't_fine{k="v"}')).toBe(1);
    expect(sample(down, 'relay_scrape_source_up{source="flaky"}')).toBe(0);
    expect(sample(down, 'relay_scrape_source_up{source="silent"}')).toBe(0);
    expect(sample(down, 'relay_scrape_source_up{source="fine"}')).toBe(1);

    failing = false;
    const up = await registry.metrics();
    expect(sample(up, 't_flaky{k="v"}')).toBe(3);
    expect(sample(up, 'relay_scrape_source_up{source="flaky"}')).toBe(1);
    // The silent source's first read never ended: no second read is started beside it.
    expect(sample(up, 'relay_scrape_source_up{source="silent"}')).toBe(0);
    expect(silentReads).toBe(1);
  });
});

describe("job metrics", () => {
  it("records run time per queue and outcome, and latency only for finished jobs; a second worker on the registry shares the series", () => {
    const registry = createMetricsRegistry({ processMetrics: false });
    const a = jobMetrics(registry);
    const b = jobMetrics(registry);
    a.observe({ queue: "q", outcome: "completed", durationMs: 20, latencyMs: 120 });
    b.observe({ queue: "q", outcome: "run_again", durationMs: 5 });
    return registry.metrics().then((text) => {
      expect(sample(text, 'relay_job_duration_seconds_count{queue="q",outcome="completed"}')).toBe(1);
      expect(sample(text, 'relay_job_duration_seconds_sum{queue="q",outcome="completed"}')).toBeCloseTo(0.02);
      expect(sample(text, 'relay_job_duration_seconds_count{queue="q",outcome="run_again"}')).toBe(1);
      expect(sample(text, 'relay_job_latency_seconds_count{queue="q",outcome="completed"}')).toBe(1);
      expect(sample(text, 'relay_job_latency_seconds_sum{queue="q",outcome="completed"}')).toBeCloseTo(0.12);
      expect(sample(text, 'relay_job_latency_seconds_count{queue="q",outcome="run_again"}')).toBeUndefined();
    });
  });
});

describe("a worker's metrics listener", () => {
  it("serves GET /metrics, asks for the token when one is set, and answers JSON 404 elsewhere", async () => {
    const registry = createMetricsRegistry({ processMetrics: true });
    jobMetrics(registry).observe({ queue: "q", outcome: "completed", durationMs: 1, latencyMs: 1 });
    const token = "0123456789abcdef-token";
    const server = await serveMetrics({ registry, host: "127.0.0.1", port: 0, token, logger });
    const url = `http://127.0.0.1:${server.port}`;
    try {
      const refused = await fetch(`${url}/metrics`);
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { message: string }).message).toMatch(/METRICS_TOKEN/);
      expect((await fetch(`${url}/metrics`, { headers: { authorization: "Bearer wrong-token-0123456789" } })).status).toBe(401);

      const ok = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await ok.text();
      expect(sample(text, 'relay_job_latency_seconds_count{queue="q",outcome="completed"}')).toBe(1);
      expect(text).toContain("process_cpu_seconds_total");

      const other = await fetch(`${url}/`);
      expect(other.status).toBe(404);
      expect(((await other.json()) as { message: string }).message).toMatch(/GET \/metrics/);
    } finally {
      await server.close();
    }
  });

  it("is not started when METRICS_PORT is 0", async () => {
    const registry = createMetricsRegistry({ processMetrics: false });
    const off = await serveWorkerMetrics({ port: 0, host: "127.0.0.1", token: undefined }, registry, logger);
    expect("port" in off).toBe(false);
    await off.close();
  });
});
