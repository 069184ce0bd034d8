import { createProcessGroup, createTestDatabase, freePort, testKek, testQueuePrefix, type ProcessGroup, type TestDatabase } from "@relay/testing";

/**
 * The metrics endpoints as production configures them (environment only): the gateway process's
 * /metrics and a tx-worker process's listener on METRICS_PORT, with METRICS_TOKEN.
 */
describe("metrics endpoints of real processes", () => {
  const token = "process-metrics-token-0123456789";
  let group: ProcessGroup;
  let database: TestDatabase;
  let gatewayUrl: string;
  let workerUrl: string;

  beforeAll(async () => {
    // The tx-worker's reconciler takes up any project's idle transactions: a database of its own.
    database = await createTestDatabase({ migrate: true });
    group = createProcessGroup({ databaseUrl: database.url, queuePrefix: testQueuePrefix("metrics-processes"), kek: testKek() });
    const port = await freePort();
    const [gateway] = await Promise.all([
      group.startGateway(),
      group.startTxWorker("tx-worker", { env: { METRICS_PORT: String(port), METRICS_TOKEN: token, TX_CONCURRENCY: "2" } }),
    ]);
    gatewayUrl = gateway.url;
    workerUrl = `http://127.0.0.1:${port}/metrics`;
  }, 60_000);
  afterAll(async () => {
    await group?.stopAll();
    await database?.drop();
  });

  it("serves the tx-worker's job metrics and Node's process metrics on METRICS_PORT, with the token only", async () => {
    expect((await fetch(workerUrl)).status).toBe(401);
    const res = await fetch(workerUrl, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain("# TYPE relay_job_duration_seconds histogram");
    expect(text).toContain("# TYPE relay_job_latency_seconds histogram");
    expect(text).toMatch(/^process_cpu_seconds_total \d/m);
  });

  it("serves the gateway's /metrics with Node's process metrics and the shared-state gauges", async () => {
    const res = await fetch(`${gatewayUrl}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/^process_cpu_seconds_total \d/m);
    expect(text).toMatch(/^relay_queue_jobs\{queue="transaction",state="waiting"\} \d+$/m);
    expect(text).toMatch(/^relay_scrape_source_up\{source="transactions"\} 1$/m);
  });
});
