import { parseApiKey } from "@relay/core";
import { createChainRepository } from "@relay/db";
import { jobCatalog } from "@relay/queue";
import { createProjectFixture, createTestDatabase, type ProjectFixture, type TestDatabase } from "@relay/testing";
import { post, startHarness, type Harness } from "../support/harness";
import { parsePrometheus } from "../support/prometheus";

const METRICS_TOKEN = "metrics-token-0123456789abcdef";
const ADMIN_TOKEN = "admin-token-0123456789abcdef";
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

interface BoardQueue {
  name: string;
  counts: Record<string, number>;
  jobs: { id: string; name: string; data: Record<string, unknown>; opts: unknown; returnValue: unknown; failedReason?: string; stacktrace: string[] }[];
}

/** Operator endpoints: /metrics with METRICS_TOKEN, and the queue dashboard behind ADMIN_TOKEN. */
describe("operator endpoints", () => {
  let h: Harness;
  let database: TestDatabase;
  let project: ProjectFixture;
  const chainId = 31_532;

  const board = async (queue: string, auth = `Bearer ${ADMIN_TOKEN}`) => {
    const res = await fetch(`${h.baseUrl}/admin/queues/api/queues?activeQueue=${queue}&status=latest&page=1&jobsPerPage=100`, { headers: { authorization: auth } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { queues: BoardQueue[] }).queues;
  };

  beforeAll(async () => {
    // Its transactions stay PENDING on a chain nobody serves: a database of its own, so no other
    // test's reconciler picks them up.
    database = await createTestDatabase({ migrate: true });
    h = await startHarness("operator-access", { metricsToken: METRICS_TOKEN, adminToken: ADMIN_TOKEN }, { databaseUrl: database.url });
    project = await createProjectFixture(h.db, h.kek, { wallets: 1 });
    // A chain the gateway accepts; no tx-worker runs here, so transaction jobs stay waiting.
    await createChainRepository(h.db).upsert({ chainId: BigInt(chainId), name: "metrics test", rpcUrls: ["http://127.0.0.1:9"], confirmations: 1, lowBalanceThresholdWei: 0n });
  });
  afterAll(async () => {
    await h?.close();
    await database?.drop();
  });

  it("serves /metrics only with the metrics token when one is set", async () => {
    const missing = await fetch(`${h.baseUrl}/metrics`);
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { message: string }).message).toMatch(/METRICS_TOKEN/);
    expect((await fetch(`${h.baseUrl}/metrics`, { headers: { authorization: "Bearer not-the-token-at-all" } })).status).toBe(401);

    const ok = await fetch(`${h.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(parsePrometheus(await ok.text()).types.get("relay_http_requests_total")).toBe("counter");
  });

  it("refuses the dashboard without the admin token (401 JSON asking for it)", async () => {
    for (const path of ["/admin/queues", "/admin/queues/api/queues"]) {
      const res = await fetch(`${h.baseUrl}${path}`);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Basic realm=/);
      expect(((await res.json()) as { message: string }).message).toMatch(/ADMIN_TOKEN/);
    }
    for (const authorization of [`Bearer ${METRICS_TOKEN}`, basic("admin", "wrong-password-0123456789"), basic(ADMIN_TOKEN, "x"), project.apiKey]) {
      expect((await fetch(`${h.baseUrl}/admin/queues`, { headers: { authorization } })).status).toBe(401);
    }
  });

  it("shows the dashboard with the admin token, as a browser (Basic) or a script (Bearer)", async () => {
    const page = await fetch(`${h.baseUrl}/admin/queues`, { headers: { authorization: basic("operator", ADMIN_TOKEN) } });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    expect(await page.text()).toContain("relay queues");
    expect((await fetch(`${h.baseUrl}/admin/queues/api/queues`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(200);
  });

  it("lists every queue of the job catalog, under the configured prefix, and its jobs carry ids only", async () => {
    // Work that leaves jobs behind: a signature (completed jobs are removed), a registration (no job),
    // and two transactions, whose jobs wait because no tx-worker runs.
    const signed = await post(h.baseUrl, `/wallet/project/${project.projectId}/personalSign`, { signerAddress: project.wallets[0]!.address, message: "m" }, project.apiKey);
    expect(signed.status).toBe(200);
    const registered = await post(h.baseUrl, `/webhook/project/${project.projectId}/eventCallback`, { callbackURL: "http://127.0.0.1:9/hook", eventType: "TransactionStatusChange" }, project.apiKey);
    expect(registered.status).toBe(200);
    const transactionIds: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await post(
        h.baseUrl,
        "/transact/sendTransaction",
        { projectId: project.projectId, chainId, contractAddress: "0x0000000000000000000000000000000000000001", functionSignature: "spend(uint256 n)", args: { n: i } },
        project.apiKey,
      );
      expect(res.status).toBe(200);
      transactionIds.push(res.body.transactionId as string);
    }

    const queues = await board("transaction");
    expect(queues.map((q) => q.name).sort()).toEqual(Object.values(jobCatalog).map((d) => d.queue).sort());
    // The board reads this deployment's keys (QUEUE_PREFIX): it sees the jobs this gateway added.
    const transaction = queues.find((q) => q.name === "transaction")!;
    expect(transaction.counts.waiting).toBe(2);
    expect(transaction.jobs.map((j) => j.data.transactionId).sort()).toEqual([...transactionIds].sort());

    const allowed = ["v", "signatureId", "attempt", "reqId", "projectId", "transactionId", "deliveryId", "walletId", "walletType"];
    const seen = (await Promise.all(Object.values(jobCatalog).map((d) => board(d.queue)))).flatMap((list) => list.flatMap((q) => q.jobs));
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const job of seen) expect(Object.keys(job.data).every((k) => allowed.includes(k))).toBe(true);
    const shown = JSON.stringify(seen);
    const secret = registered.body.secret as string;
    for (const forbidden of [secret, secret.slice("whsec_".length), project.apiKey, parseApiKey(project.apiKey)!.secret, ADMIN_TOKEN, METRICS_TOKEN]) {
      expect(shown).not.toContain(forbidden);
    }
  });
});

describe("operator endpoints when their tokens are not set", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("operator-off", { env: "production" });
  });
  afterAll(() => h?.close());

  it("has no dashboard without ADMIN_TOKEN (404 JSON), and no /metrics in production without METRICS_TOKEN", async () => {
    for (const path of ["/admin/queues", "/admin/queues/api/queues"]) {
      const res = await fetch(`${h.baseUrl}${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(res.status).toBe(404);
      expect(((await res.json()) as { message: string }).message).toEqual(expect.any(String));
    }
    const metrics = await fetch(`${h.baseUrl}/metrics`);
    expect(metrics.status).toBe(404);
    expect(((await metrics.json()) as { message: string }).message).toMatch(/METRICS_TOKEN/);
  });

  it("has no /metrics without METRICS_TOKEN on a gateway listening beyond loopback, whatever NODE_ENV says", async () => {
    const open = await startHarness("operator-open-host", { env: "development", host: "0.0.0.0" });
    try {
      const metrics = await fetch(`${open.baseUrl}/metrics`);
      expect(metrics.status).toBe(404);
      const { message } = (await metrics.json()) as { message: string };
      expect(message).toMatch(/listens beyond loopback.*METRICS_TOKEN/);
      // It does not tell an unauthenticated caller where the gateway listens.
      expect(message).not.toContain("0.0.0.0");
    } finally {
      await open.close();
    }
    // On loopback in development it is open, as the quick start shows it.
    const local = await startHarness("operator-loopback", { env: "development" });
    try {
      expect((await fetch(`${local.baseUrl}/metrics`)).status).toBe(200);
    } finally {
      await local.close();
    }
  });
});
