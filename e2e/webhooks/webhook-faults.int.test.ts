import { closedPort, receiver, until } from "../support/webhook-receiver";
import type { JsonRpcProvider, Contract } from "ethers";
import {
  addChain,
  createProjectFixture,
  createTestDatabase,
  deployRecorder,
  fund,
  readRedisValues,
  startAnvil,
  waitForStatus,
  type AnvilInstance,
  type ProjectFixture,
  type TestDatabase,
} from "@relay/testing";
import { createSafeHttpClient } from "@relay/webhooks";
import { post, startHarness, type Harness } from "../support/harness";

/**
 * Webhook delivery under faults (docs/webhooks.md): a receiver that is down and comes back, a
 * callback URL that points at a private address while private networks are refused, and no
 * secret ever written to Redis. The dispatcher claims every project's events, so this file has a
 * database of its own.
 */

interface Stat {
  responseStatus: number;
  eventCallbackId: string;
  createdAt: string;
  data: { error?: string; eventId?: string };
}


/** Many short attempts: enough to see several failures and still deliver once the receiver is back. */
const SHORT_RETRIES = Array.from({ length: 40 }, () => "250ms").join(",");

describe("webhook delivery under faults", () => {
  let h: Harness;
  let anvil: AnvilInstance;
  let recorder: { address: string; contract: Contract; provider: JsonRpcProvider };
  let database: TestDatabase;
  const secrets: string[] = [];
  const apiKeys: string[] = [];

  const register = async (p: ProjectFixture, callbackURL: string) => {
    const res = await post(h.baseUrl, `/webhook/project/${p.projectId}/eventCallback`, { callbackURL, eventType: "TransactionStatusChange" }, p.apiKey);
    expect(res.status).toBe(200);
    secrets.push(res.body.secret as string);
    return res.body as { id: string; secret: string };
  };
  const statsOf = async (p: ProjectFixture, id: string): Promise<Stat[]> => {
    const res = await fetch(`${h.baseUrl}/webhook/project/${p.projectId}/eventCallbacks`, { headers: { authorization: `Bearer ${p.apiKey}` } });
    const list = (await res.json()) as { id: string; stats: Stat[] }[];
    return list.find((c) => c.id === id)?.stats ?? [];
  };
  const newProject = async () => {
    const p = await createProjectFixture(h.db, h.kek);
    await fund(anvil.rpcUrl, [p.wallets[0]!.address]);
    apiKeys.push(p.apiKey);
    return p;
  };
  const send = async (p: ProjectFixture) => {
    const res = await post(
      h.baseUrl,
      "/transact/sendTransaction",
      { projectId: p.projectId, chainId: anvil.chainId, contractAddress: recorder.address, functionSignature: "spend(uint256 n)", args: { n: 1 } },
      p.apiKey,
    );
    expect(res.status).toBe(200);
    return res.body.transactionId as string;
  };

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 31_411 });
    recorder = await deployRecorder(anvil.rpcUrl);
    database = await createTestDatabase({ migrate: true });
    h = await startHarness("webhook-faults", {}, { databaseUrl: database.url });
    await addChain(h.db, anvil);
    await h.startTxWorker();
    await h.startWebhookWorker({ retrySchedule: SHORT_RETRIES });
  });
  afterAll(async () => {
    await h?.close();
    recorder?.provider.destroy();
    await anvil?.stop();
    await database?.drop();
  });

  it("keeps retrying a receiver that is down (responseStatus 0) and delivers once it is back", async () => {
    const project = await newProject();
    const port = await closedPort();
    const registration = await register(project, `http://127.0.0.1:${port}/hook`);
    const id = await send(project);
    await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id);

    await until(async () => (await statsOf(project, registration.id)).filter((s) => s.responseStatus === 0).length >= 3);
    const down = await statsOf(project, registration.id);
    expect(down.every((s) => s.responseStatus === 0 && typeof s.data.error === "string")).toBe(true);
    expect(down[0]!.data.error).toMatch(/connect-failed|ECONNREFUSED/);

    const back = await receiver({ port });
    try {
      // PENDING, SUBMITTED, CONFIRMED all arrive once the receiver listens again.
      await until(() => back.received.length >= 3);
      await until(async () => (await statsOf(project, registration.id)).filter((s) => s.responseStatus === 200).length >= 3);
      const stats = await statsOf(project, registration.id);
      const firstSuccess = stats
        .filter((s) => s.responseStatus === 200)
        .map((s) => Date.parse(s.createdAt))
        .sort((a, b) => a - b)[0]!;
      // The failures came before the first success, and the retry kept the event's webhook-id.
      expect(stats.filter((s) => s.responseStatus === 0).every((s) => Date.parse(s.createdAt) <= firstSuccess)).toBe(true);
      expect(back.received.map((r) => r.headers["webhook-id"])).toContain(down[0]!.data.eventId);
    } finally {
      await back.close();
    }
  });

  it("writes no secret into Redis: no webhook secret, API key or sealed key, and jobs that carry ids only", async () => {
    const project = await newProject();
    const hook = await receiver();
    try {
      await register(project, hook.url);
      const id = await send(project);
      await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id);
      await until(() => hook.received.length >= 3);

      // A personal-sign job is deleted as soon as it completes: look at one while no worker takes it.
      await h.stopWorker();
      const signing = post(h.baseUrl, `/wallet/project/${project.projectId}/personalSign`, { signerAddress: project.wallets[0]!.address, message: "hello" }, project.apiKey);
      let personalSignJobs: Record<string, unknown>[] = [];
      try {
        await until(async () => {
          personalSignJobs = jobsOf(await readAll(), "personal-sign");
          return personalSignJobs.length > 0;
        }, 4000);
      } finally {
        await signing;
        await h.startWorker();
      }

      const everything = await readAll();
      // The scan does see the jobs' contents (the transaction id is in its job).
      expect([...everything.values()].some((v) => v.includes(id))).toBe(true);
      for (const [key, value] of everything) {
        for (const secret of [...secrets, ...apiKeys]) {
          if (value.includes(secret) || value.includes(secret.replace(/^whsec_/, ""))) throw new Error(`Redis key ${key} holds a secret`);
        }
        // A sealed envelope: v1.<kekId>.<iv>.<tag>.<ciphertext>.
        if (/v1\.[A-Za-z0-9_-]{1,32}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/.test(value)) throw new Error(`Redis key ${key} holds a sealed key`);
      }

      // reqId: the id of the HTTP request that enqueued the job, for linked log lines (docs/metrics.md);
      // signWithinMs: how long after its insert the request may be signed (a number, no secret).
      for (const data of personalSignJobs) {
        expect(Object.keys(data).sort()).toEqual(["batch", "signatures", "v"]);
        for (const item of data.signatures as Record<string, unknown>[]) expect(Object.keys(item).sort()).toEqual(["projectId", "reqId", "signWithinMs", "signatureId"]);
      }
      const txJobs = jobsOf(everything, "transaction");
      expect(txJobs.length).toBeGreaterThan(0);
      for (const data of txJobs) expect(Object.keys(data).sort()).toEqual(["projectId", "reqId", "transactionId", "v"]);
      const deliveryJobs = jobsOf(everything, "webhook-delivery");
      expect(deliveryJobs.length).toBeGreaterThan(0);
      for (const data of deliveryJobs) expect(Object.keys(data).sort()).toEqual(["deliveryId", "v"]);
    } finally {
      await hook.close();
    }
  });

  it("refuses loopback, private, link-local and metadata destinations, by address or by name, when private networks are not allowed", async () => {
    // One receiver on both loopback addresses: every loopback form below would reach it.
    const target = await receiver({ hosts: ["127.0.0.1", "::1"] });
    const port = target.port;
    const destinations = [
      { url: `http://127.0.0.1:${port}/hook`, refusal: /127\.0\.0\.1 \(loopback\)/, loopback: true },
      { url: `http://[::1]:${port}/hook`, refusal: /::1 \(loopback\)/, loopback: true },
      // The URL parser writes it ::ffff:7f00:1; the address judged is the IPv4 one it maps.
      { url: `http://[::ffff:127.0.0.1]:${port}/hook`, refusal: /::ffff:7f00:1 \(loopback\)/, loopback: true },
      // A name: refused at connect time, on the address it resolved to.
      { url: `http://localhost:${port}/hook`, refusal: /localhost resolves to an address that is not public \(loopback\)$/, loopback: true },
      // Not connectable here; without the filter these would end in a connect failure or time-out.
      { url: `http://10.0.0.1:${port}/hook`, refusal: /10\.0\.0\.1 \(private\)/, loopback: false },
      { url: "http://169.254.169.254/latest/meta-data/", refusal: /169\.254\.169\.254 \(linkLocal\)/, loopback: false },
    ];
    try {
      // Control: the worker's client with private networks allowed does reach the receiver by each
      // loopback form, so the silence below is the filter's doing.
      const open = createSafeHttpClient({ allowPrivateNetworks: true, connectTimeoutMs: 1000, totalTimeoutMs: 2000 });
      for (const d of destinations.filter((x) => x.loopback)) expect({ url: d.url, status: (await open.post(d.url, "{}")).status }).toEqual({ url: d.url, status: 200 });
      expect(target.received).toHaveLength(4);
      target.received.length = 0;

      await h.stopWebhookWorker();
      await h.startWebhookWorker({ allowPrivateNetworks: false, retrySchedule: "200ms,200ms" });
      const project = await newProject();
      const registrations = [];
      for (const d of destinations) registrations.push({ ...d, id: (await register(project, d.url)).id });
      const id = await send(project);
      await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id);
      // PENDING, SUBMITTED, CONFIRMED to each: wait until every delivery is over, however it ended.
      const deliveries = { eventCallbackId: { in: registrations.map((r) => r.id) } };
      await until(
        async () =>
          (await h.db.webhookDelivery.count({ where: deliveries })) === 3 * registrations.length &&
          (await h.db.webhookDelivery.count({ where: { ...deliveries, status: "PENDING" } })) === 0,
      );
      expect(new Set((await h.db.webhookDelivery.findMany({ where: deliveries })).map((d) => d.status))).toEqual(new Set(["FAILED"]));

      for (const r of registrations) {
        const stats = await statsOf(project, r.id);
        expect({ url: r.url, attempts: stats.length }).toEqual({ url: r.url, attempts: 9 });
        for (const s of stats) {
          expect({ url: r.url, responseStatus: s.responseStatus }).toEqual({ url: r.url, responseStatus: 0 });
          expect(s.data.error).toMatch(/^refused-address: /);
          expect(s.data.error).toMatch(r.refusal);
        }
      }
      expect(target.received).toEqual([]);
    } finally {
      await target.close();
      await h.stopWebhookWorker();
      await h.startWebhookWorker({ retrySchedule: SHORT_RETRIES });
    }
  });

  const readAll = () => readRedisValues(h.redis, h.prefix);

  /** The payloads of the BullMQ job hashes of one queue (`<prefix>:<queue>:<jobId>` with a data field). */
  function jobsOf(all: Map<string, string>, queue: string): Record<string, unknown>[] {
    const jobs: Record<string, unknown>[] = [];
    for (const [key, value] of all) {
      const rest = key.slice(h.prefix.length + 1);
      if (!rest.startsWith(`${queue}:`)) continue;
      const hash = JSON.parse(value) as { name?: unknown; data?: unknown } | null;
      if (!hash || typeof hash !== "object" || Array.isArray(hash) || typeof hash.data !== "string" || hash.name === undefined) continue;
      jobs.push(JSON.parse(hash.data) as Record<string, unknown>);
    }
    return jobs;
  }
});
