import { randomUUID } from "node:crypto";
import { JsonRpcProvider, parseEther, type Contract } from "ethers";
import { createLogger } from "@relay/core";
import { TRANSACTION_STATUSES } from "@relay/lifecycle";
import { createMetricsRegistry, serveMetrics, type MetricsServer } from "@relay/metrics";
import {
  addChain,
  createProjectFixture,
  createTestDatabase,
  deployRecorder,
  fund,
  startAnvil,
  waitForStatus,
  type AnvilInstance,
  type ProjectFixture,
  type TestDatabase,
} from "@relay/testing";
import { post, startHarness, type Harness } from "../support/harness";
import { scrape, type Scrape } from "../support/prometheus";
import { downReceiver, receiver, until } from "../support/webhook-receiver";

// Waits below are generous for a machine running the whole suite at once.
jest.setTimeout(120_000);

/**
 * docs/metrics.md on real Postgres, Redis, workers and anvil: the gateway's /metrics after known
 * traffic (requests by route pattern, queue depths, transactions by chain and status, wallet
 * balances), the workers' listener (job latency, delivery attempts), and log lines of requests
 * and jobs that name each other.
 */
describe("operations", () => {
  const workerMetrics = createMetricsRegistry({ processMetrics: false });
  let h: Harness;
  let anvil: AnvilInstance;
  let recorder: { address: string; contract: Contract; provider: JsonRpcProvider };
  let database: TestDatabase;
  let project: ProjectFixture;
  let workerListener: MetricsServer;
  const chainId = 31_531;

  const gateway = () => scrape(`${h.baseUrl}/metrics`);
  const workers = () => scrape(`http://127.0.0.1:${workerListener.port}/metrics`);
  const sign = (message: string, apiKey = project.apiKey) =>
    post(h.baseUrl, `/wallet/project/${project.projectId}/personalSign`, { signerAddress: project.wallets[0]!.address, message }, apiKey);
  const send = async () => {
    const res = await post(
      h.baseUrl,
      "/transact/sendTransaction",
      { projectId: project.projectId, chainId, contractAddress: recorder.address, functionSignature: "spend(uint256 n)", args: { n: 1 } },
      project.apiKey,
    );
    expect(res.status).toBe(200);
    return res.body.transactionId as string;
  };
  const delta = (before: Scrape, after: Scrape, name: string, labels: Record<string, string>) => (after.value(name, labels) ?? 0) - (before.value(name, labels) ?? 0);

  beforeAll(async () => {
    anvil = await startAnvil({ chainId });
    recorder = await deployRecorder(anvil.rpcUrl);
    // The transaction gauges count every row and the dispatcher claims every event: a database of its own.
    database = await createTestDatabase({ migrate: true });
    h = await startHarness("metrics", {}, { databaseUrl: database.url, workerMetrics });
    // A threshold makes the tx-worker record balances (WalletBalanceLow's check), which the gauges show.
    await addChain(h.db, anvil, { lowBalanceThresholdWei: parseEther("1") });
    project = await createProjectFixture(h.db, h.kek, { wallets: 1 });
    await fund(anvil.rpcUrl, [project.wallets[0]!.address]);
    await h.startWebhookWorker({ retrySchedule: "100ms" });
    workerListener = await serveMetrics({ registry: workerMetrics, host: "127.0.0.1", port: 0, token: undefined, logger: createLogger({ name: "test", level: "silent" }) });
  });
  afterAll(async () => {
    await workerListener?.close();
    await h?.close();
    recorder?.provider.destroy();
    await anvil?.stop();
    await database?.drop();
  });

  describe("metrics", () => {
    it("counts requests by method, route pattern and status, never by the raw URL", async () => {
      const before = await gateway();
      for (const message of ["one", "two", "three"]) expect((await sign(message)).status).toBe(200);
      expect((await sign("no key", "")).status).toBe(401);
      expect((await fetch(`${h.baseUrl}/no/such/route`)).status).toBe(404);
      const after = await gateway();

      const route = "/wallet/project/:projectId/personalSign";
      expect(delta(before, after, "relay_http_requests_total", { method: "POST", route, status: "200" })).toBe(3);
      expect(delta(before, after, "relay_http_request_duration_seconds_count", { method: "POST", route, status: "200" })).toBe(3);
      // Stopped before reaching a route (no key): counted under its area, not under its URL.
      expect(delta(before, after, "relay_http_requests_total", { method: "POST", route: "/wallet/*", status: "401" })).toBe(1);
      expect(delta(before, after, "relay_http_requests_total", { method: "GET", route: "unmatched", status: "404" })).toBe(1);
      expect(after.types.get("relay_http_requests_total")).toBe("counter");
      expect(after.types.get("relay_http_request_duration_seconds")).toBe("histogram");
      const routes = after.series("relay_http_requests_total").map((s) => s.labels.route);
      expect(routes.some((r) => r?.includes(project.projectId) || r?.includes("/no/such"))).toBe(false);
    });

    it("shows the signing worker's job latency on the workers' metrics listener", async () => {
      const metrics = await workers();
      // The three signatures above, each one job completed on its first run.
      expect(metrics.value("relay_job_latency_seconds_count", { queue: "personal-sign", outcome: "completed" })).toBe(3);
      expect(metrics.value("relay_job_duration_seconds_count", { queue: "personal-sign", outcome: "completed" })).toBe(3);
      expect(metrics.types.get("relay_job_latency_seconds")).toBe("histogram");
    });

    it("shows jobs waiting and transactions PENDING while no tx-worker runs, then CONFIRMED, job latency and the wallet's balance", async () => {
      const ids = [await send(), await send()];
      const waiting = await gateway();
      expect(waiting.value("relay_queue_jobs", { queue: "transaction", state: "waiting" })).toBe(2);
      expect(waiting.value("relay_queue_jobs", { queue: "transaction", state: "active" })).toBe(0);
      expect(waiting.value("relay_transactions", { chain_id: String(chainId), status: "PENDING" })).toBe(2);
      expect(waiting.value("relay_transactions", { chain_id: String(chainId), status: "CONFIRMED" })).toBe(0);
      // Every status of the chain is a series, before its first transaction too.
      expect(waiting.series("relay_transactions").filter((s) => s.labels.chain_id === String(chainId))).toHaveLength(TRANSACTION_STATUSES.length);
      expect(waiting.value("relay_scrape_source_up", { source: "queues" })).toBe(1);
      expect(waiting.value("relay_scrape_source_up", { source: "transactions" })).toBe(1);

      await h.startTxWorker();
      for (const id of ids) expect((await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id)).status).toBe("CONFIRMED");
      const done = await gateway();
      expect(done.value("relay_transactions", { chain_id: String(chainId), status: "PENDING" })).toBe(0);
      expect(done.value("relay_transactions", { chain_id: String(chainId), status: "CONFIRMED" })).toBe(2);
      expect(done.value("relay_queue_jobs", { queue: "transaction", state: "waiting" })).toBe(0);

      const worker = await workers();
      expect(worker.value("relay_job_latency_seconds_count", { queue: "transaction", outcome: "completed" })).toBe(2);
      expect(worker.value("relay_job_duration_seconds_count", { queue: "transaction", outcome: "completed" })).toBe(2);

      // The balance check after each final send records the wallet's balance; the gauge shows it.
      const wallet = { chain_id: String(chainId), address: project.wallets[0]!.address };
      const onChain = Number(await recorder.provider.getBalance(wallet.address));
      await until(async () => (await gateway()).value("relay_wallet_balance_wei", wallet) === onChain);
      const balances = await gateway();
      expect(balances.value("relay_wallet_balance_low", wallet)).toBe(0);
      expect(balances.value("relay_wallet_balance_checked_timestamp_seconds", wallet)).toBeGreaterThan(0);
    });

    it("counts webhook delivery attempts by result", async () => {
      const register = (callbackURL: string) =>
        post(h.baseUrl, `/webhook/project/${project.projectId}/eventCallback`, { callbackURL, eventType: "TransactionStatusChange" }, project.apiKey);
      // Events of the transactions of the test before must not reach these registrations: wait
      // until the dispatcher has taken all of them (with no registration then, they get no delivery).
      await until(async () => (await h.db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM event WHERE dispatched_at IS NULL`)[0]?.n === 0);
      const healthy = await receiver();
      const flaky = await receiver({ answers: [500] });
      const down = await downReceiver();
      const ids = {
        healthy: (await register(healthy.url)).body.id as string,
        flaky: (await register(flaky.url)).body.id as string,
        down: (await register(down.url)).body.id as string,
      };
      const before = await workers();

      const id = await send();
      await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id);
      // PENDING, SUBMITTED, CONFIRMED to each: healthy 3 attempts; flaky 500 once, then 3 delivered;
      // down: 2 attempts per event (the schedule allows one retry), 6 in all.
      const attempts = async () => {
        const res = await fetch(`${h.baseUrl}/webhook/project/${project.projectId}/eventCallbacks`, { headers: { authorization: `Bearer ${project.apiKey}` } });
        const list = (await res.json()) as { id: string; stats: unknown[] }[];
        return Object.fromEntries(list.map((c) => [c.id, c.stats.length]));
      };
      // Generous: nine deliveries, two of them retried, some held back behind older ones, on a
      // machine that may be running the whole suite. No reconciler runs here, so a lost job still fails.
      await until(async () => {
        const n = await attempts();
        return n[ids.healthy] === 3 && n[ids.flaky] === 4 && n[ids.down] === 6;
      }, 60_000);
      const after = await workers();
      const name = "relay_webhook_delivery_attempts_total";
      expect(delta(before, after, name, { result: "delivered" })).toBe(6);
      expect(delta(before, after, name, { result: "failed_status" })).toBe(1);
      expect(delta(before, after, name, { result: "network_error" })).toBe(6);
      expect(after.value(name, { result: "refused" })).toBe(0);
      await Promise.all([healthy.close(), flaky.close(), down.close()]);
    });
  });

  describe("logs", () => {
    type Line = Record<string, unknown> & { msg?: string; req?: { id?: string }; res?: { statusCode?: number } };
    const lines = (): Line[] => h.logs.map((l) => JSON.parse(l) as Line);
    const requestLine = (reqId: string) => lines().find((l) => l.req?.id === reqId && l.res !== undefined);
    const jobLines = (jobId: unknown) => lines().filter((l) => l.jobId === jobId && typeof l.outcome === "string");
    const withRequestId = (reqId: string) => ({ "x-request-id": reqId, authorization: `Bearer ${project.apiKey}`, "content-type": "application/json" });

    it("links a personalSign request and its signing job: the request line names the signatureId, the job line the request and the signature", async () => {
      const reqId = `it-${randomUUID()}`;
      const res = await fetch(`${h.baseUrl}/wallet/project/${project.projectId}/personalSign`, {
        method: "POST",
        headers: withRequestId(reqId),
        body: JSON.stringify({ signerAddress: project.wallets[0]!.address, message: "linked" }),
      });
      expect(res.status).toBe(200);
      const { signatureId } = (await res.json()) as { signatureId: string };

      await until(() => requestLine(reqId) !== undefined);
      expect(requestLine(reqId)).toMatchObject({ reqId, signatureId, route: "/wallet/project/:projectId/personalSign", res: { statusCode: 200 } });
      // A signing job signs a batch: its line lists the batch's signatureIds and reqIds.
      const job = lines().find((l) => l.queue === "personal-sign" && Array.isArray(l.signatureIds) && l.signatureIds.includes(signatureId) && l.outcome === "completed");
      expect(job).toMatchObject({ msg: "job completed", attempt: 1, durationMs: expect.any(Number), latencyMs: expect.any(Number) });
      expect(job!.signatureIds).toEqual([signatureId]);
      expect(job!.reqIds).toEqual([reqId]);
      expect(jobLines(job!.jobId)).toHaveLength(1);
    });

    it("links a sendTransaction request and its transaction's job, whose line is written when the transaction is final", async () => {
      const reqId = `it-${randomUUID()}`;
      const res = await fetch(`${h.baseUrl}/transact/sendTransaction`, {
        method: "POST",
        headers: withRequestId(reqId),
        body: JSON.stringify({ projectId: project.projectId, chainId, contractAddress: recorder.address, functionSignature: "spend(uint256 n)", args: { n: 2 } }),
      });
      expect(res.status).toBe(200);
      const { transactionId } = (await res.json()) as { transactionId: string };
      await waitForStatus(h.baseUrl, project.apiKey, project.projectId, transactionId);

      expect(requestLine(reqId)).toMatchObject({ reqId, transactionId, route: "/transact/sendTransaction", res: { statusCode: 200 } });
      await until(() => lines().some((l) => l.queue === "transaction" && l.transactionId === transactionId && l.outcome === "completed"));
      const job = lines().find((l) => l.queue === "transaction" && l.transactionId === transactionId && l.outcome === "completed");
      expect(job).toMatchObject({ msg: "job completed", reqId, projectId: project.projectId, transactionId });
      // Runs that only waited for the chain are debug lines: one line for the whole job at info.
      expect(jobLines(job!.jobId)).toHaveLength(1);
    });

    it("names the registration an eventCallback request created", async () => {
      const reqId = `it-${randomUUID()}`;
      const res = await fetch(`${h.baseUrl}/webhook/project/${project.projectId}/eventCallback`, {
        method: "POST",
        headers: withRequestId(reqId),
        body: JSON.stringify({ callbackURL: "http://127.0.0.1:9/hook", eventType: "WalletBalanceLow" }),
      });
      expect(res.status).toBe(200);
      const { id } = (await res.json()) as { id: string };
      await until(() => requestLine(reqId) !== undefined);
      expect(requestLine(reqId)).toMatchObject({ reqId, eventCallbackId: id, route: "/webhook/project/:projectId/eventCallback" });
    });
  });
});
