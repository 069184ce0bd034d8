import { randomUUID } from "node:crypto";
import { Interface, verifyMessage } from "ethers";
import { createDatabase, createPool, type Database } from "@relay/db";
import { createRedis, type Redis } from "@relay/queue";
import {
  addChain,
  callKey,
  countByCall,
  createProcessGroup,
  createProjectFixture,
  createTestDatabase,
  deleteRedisKeys,
  deployRecorder,
  fund,
  minedTransactions,
  startAnvil,
  testKek,
  testQueuePrefix,
  type AnvilInstance,
  type AppProcess,
  type DeployedRecorder,
  type LogLine,
  type ProcessGroup,
  type ProjectFixture,
  type TestDatabase,
} from "@relay/testing";
import { signDelivery } from "@relay/webhooks";
import { SET_ORDER, waitUntilAllFinal } from "../support/transactions";
import { receiver } from "../support/webhook-receiver";

type Pool = ReturnType<typeof createPool>;

const SIGNS = 48;
const TRANSACTIONS = 24;
/** Requests in flight at once from the load; small, so 8 processes stay well inside Postgres' connection limit. */
const WAVE = 6;
/** The load is this far along when one process of each kind gets SIGTERM. */
const STOP_AFTER_WAVES = 3;
const WALLETS = 3;
const OWNER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const KINDS = ["signing-worker", "tx-worker", "webhook-worker"] as const;
const STOP_LINES = ["stopping: taking no new work, finishing work in flight", "stopped"];

type Request = { kind: "sign"; signatureId: string; message: string } | { kind: "tx"; requestId: string; orderId: string };

/**
 * docs/operations.md, "Scale-out" and "Graceful shutdown": two gateways and two replicas of every
 * worker on one Postgres and one Redis (under a hash-tagged queue prefix, as Redis Cluster needs),
 * a mixed load of personal signs, contract calls on anvil and webhook deliveries to a live
 * receiver; a third of the way in, one gateway and one worker of each kind get SIGTERM and the
 * load goes on against the others. Then: every accepted request is final, nothing went on chain
 * twice, no nonce was used twice, every event was delivered at least once and in order per
 * transaction, nothing is left half-written, and each stopped process exited 0 after finishing.
 */
describe("two replicas of everything, one of each stopped mid-load", () => {
  const kek = testKek();
  // Braces: a Redis Cluster hash tag (docs/operations.md). Kept short: QUEUE_PREFIX is at most 64 characters.
  const prefix = `{${testQueuePrefix("r")}}`;
  let database: TestDatabase;
  let anvil: AnvilInstance;
  let recorder: DeployedRecorder;
  let pool: Pool;
  let db: Database;
  let redis: Redis;
  let project: ProjectFixture;
  let hook: Awaited<ReturnType<typeof receiver>>;
  let group: ProcessGroup;
  const gateways: { name: string; url: string; process: AppProcess }[] = [];
  const workers = new Map<string, AppProcess>();

  beforeAll(async () => {
    // A database of its own: webhook workers and reconcilers take every project's rows.
    [database, anvil] = await Promise.all([createTestDatabase({ migrate: true }), startAnvil({ chainId: 31_713 })]);
    recorder = await deployRecorder(anvil.rpcUrl);
    pool = createPool({ url: database.url, poolSize: 4 });
    db = createDatabase({ pool });
    redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "worker");
    await addChain(db, anvil);
    project = await createProjectFixture(db, kek, { wallets: WALLETS });
    await fund(anvil.rpcUrl, project.wallets.map((w) => w.address));
    // A receiver that takes a moment to answer keeps deliveries in flight when a worker stops.
    hook = await receiver({ delayMs: 100 });

    group = createProcessGroup({ databaseUrl: database.url, queuePrefix: prefix, kek });
    const env = {
      // Generous: this machine's CPUs are shared; a slow moment must not turn into a 500 or a cut.
      SIGN_TIMEOUT_MS: "30000",
      SHUTDOWN_GRACE_MS: "30000",
      SIGNING_CONCURRENCY: "4",
      TX_CONCURRENCY: "4",
      WEBHOOK_CONCURRENCY: "8",
      WEBHOOK_RETRY_SCHEDULE: "200ms,500ms,1s,1s,1s,1s,1s,1s",
    };
    const started = await Promise.all([
      ...["gateway-a", "gateway-b"].map((name) => group.startGateway({ name, logLevel: "info", env })),
      ...KINDS.flatMap((kind) => ["a", "b"].map((r) => group.startWorker(kind, `${kind}-${r}`, { env }))),
    ]);
    for (const g of started.slice(0, 2) as { url: string; process: AppProcess }[]) gateways.push({ name: g.process.name, ...g });
    for (const w of started.slice(2) as AppProcess[]) workers.set(w.name, w);
  }, 120_000);

  afterAll(async () => {
    await group?.stopAll();
    await hook?.close();
    if (redis) {
      await deleteRedisKeys(redis, prefix);
      await redis.quit();
    }
    await db?.$disconnect();
    if (pool && !pool.ended) await pool.end();
    recorder?.provider.destroy();
    await anvil?.stop();
    await database?.drop();
  });

  /**
   * What a load balancer does: the next gateway in turn; a connection refused or cut (a gateway
   * that stops) goes to the other one. Safe to repeat: the request carries its own id.
   */
  let turn = 0;
  let failovers = 0;
  async function viaGateways(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    for (let tries = 0; tries < 6; tries++) {
      const gateway = gateways[turn++ % gateways.length]!;
      try {
        const res = await fetch(`${gateway.url}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${project.apiKey}` },
          body: JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      } catch {
        failovers++;
      }
    }
    throw new Error(`${path}: no gateway answered`);
  }

  it("keeps every invariant while one process of each kind stops gracefully", async () => {
    const registered = await viaGateways(`/webhook/project/${project.projectId}/eventCallback`, {
      callbackURL: hook.url,
      eventType: "TransactionStatusChange",
    });
    expect(registered.status).toBe(200);
    const secret = String(registered.body.secret);

    const requests: Request[] = [];
    for (let i = 0, s = 0, t = 0; s < SIGNS || t < TRANSACTIONS; i++) {
      if (i % 3 === 2 && t < TRANSACTIONS) requests.push({ kind: "tx", requestId: randomUUID(), orderId: String(++t) });
      else if (s < SIGNS) requests.push({ kind: "sign", signatureId: randomUUID(), message: `replica load ${++s}` });
    }
    const signer = project.wallets[0]!.address;
    const send = (r: Request) =>
      r.kind === "sign"
        ? viaGateways(`/wallet/project/${project.projectId}/personalSign`, { signerAddress: signer, message: r.message, signatureId: r.signatureId })
        : viaGateways("/transact/sendTransaction", {
            projectId: project.projectId,
            chainId: anvil.chainId,
            contractAddress: recorder.address,
            requestId: r.requestId,
            functionSignature: SET_ORDER,
            args: { order: { id: r.orderId, owner: OWNER, flags: [] } },
          });

    const victims = [gateways[0]!.process, ...KINDS.map((k) => workers.get(`${k}-a`)!)];
    // Every job's log lines carry its queue: a replica took part once it logged one of its queue.
    const queueOf = { "signing-worker": "personal-sign", "tx-worker": "transaction", "webhook-worker": "webhook-delivery" } as const;
    const tookPart = (kind: (typeof KINDS)[number], replica: string) => workers.get(`${kind}-${replica}`)!.logs.some((l: LogLine) => l.queue === queueOf[kind]);
    const waves = Math.ceil(requests.length / WAVE);
    // The stop comes once every replica to be stopped has run jobs (so each is stopped with work
    // behind it, not idle), and no later than with three waves still to go.
    const stopAt = (w: number) => w === waves - 3 || (w >= STOP_AFTER_WAVES && KINDS.every((k) => tookPart(k, "a")));
    let stopped = false;
    const answers: { request: Request; status: number; body: Record<string, unknown> }[] = [];
    for (let w = 0; w < waves; w++) {
      const wave = requests.slice(w * WAVE, (w + 1) * WAVE).map(async (request) => ({ request, ...(await send(request)) }));
      if (!stopped && stopAt(w)) {
        stopped = true;
        // Mid-wave: the first answer is back, the others (personal signs above all) are still in flight.
        await Promise.race(wave);
        for (const victim of victims) victim.kill("SIGTERM");
      }
      answers.push(...(await Promise.all(wave)));
    }

    // Every stopped process finished and exited 0, in order: stopped taking work, finished it, closed.
    for (const victim of victims) {
      expect({ name: victim.name, exit: await victim.exited }).toEqual({ name: victim.name, exit: { code: 0, signal: null } });
      const lines = victim.logs.map((l) => l.msg).filter((m) => STOP_LINES.includes(m) || m.endsWith("closing connections"));
      expect({ name: victim.name, lines }).toEqual({ name: victim.name, lines: [STOP_LINES[0], expect.stringMatching(/closing connections$/), STOP_LINES[1]] });
    }

    // Every request was accepted; personal signs answered with a valid signature of the project's wallet.
    expect(answers.filter((a) => !(a.status === 200 || (a.request.kind === "tx" && a.status === 409))).map((a) => [a.status, a.body])).toEqual([]);
    for (const a of answers) {
      if (a.request.kind === "sign") expect(verifyMessage(a.request.message, String(a.body.signature))).toBe(signer);
      else expect(a.body.transactionId).toBe(a.request.requestId);
    }

    // Every transaction final (CONFIRMED), each call on chain exactly once, nonces 0..k-1 per wallet.
    await waitUntilAllFinal(pool, project.projectId, TRANSACTIONS, 60_000, [...workers.values()]);
    const txs = (
      await pool.query<{ id: string; status: string; from: string; nonce: string; hash: string }>(
        `SELECT id, status, lower(from_address) AS "from", nonce::text AS nonce, hash FROM transaction WHERE project_id = $1`,
        [project.projectId],
      )
    ).rows;
    expect(txs.filter((t) => t.status !== "CONFIRMED")).toEqual([]);
    const orders = requests.flatMap((r) => (r.kind === "tx" ? [r.orderId] : []));
    const abi = new Interface([SET_ORDER]);
    const counts = countByCall(await minedTransactions(anvil.rpcUrl));
    expect(orders.map((id) => counts.get(callKey(recorder.address, abi.encodeFunctionData("setOrder", [{ id, owner: OWNER, flags: [] }]))) ?? 0)).toEqual(
      orders.map(() => 1),
    );
    const mined = (await minedTransactions(anvil.rpcUrl)).filter((m) => txs.some((t) => t.from === m.from));
    expect(mined.map((m) => m.hash).sort()).toEqual(txs.map((t) => t.hash).sort());
    for (const wallet of new Set(txs.map((t) => t.from))) {
      const nonces = mined.filter((m) => m.from === wallet).map((m) => m.nonce).sort((x, y) => x - y);
      expect({ wallet, nonces }).toEqual({ wallet, nonces: nonces.map((_, i) => i) });
    }

    // No record half-written: every signature SIGNED with its signature, every event dispatched
    // and each of its deliveries DELIVERED.
    const signatures = await pool.query(`SELECT id FROM signature WHERE project_id = $1 AND (status <> 'SIGNED' OR signature IS NULL)`, [project.projectId]);
    expect(signatures.rows).toEqual([]);
    const deliveriesDone = async () =>
      (
        await pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM event e LEFT JOIN webhook_delivery d ON d.event_id = e.id
            WHERE e.project_id = $1 AND (e.dispatched_at IS NULL OR d.status IS DISTINCT FROM 'DELIVERED')`,
          [project.projectId],
        )
      ).rows[0]!.n === 0;
    for (const deadline = Date.now() + 30_000; !(await deliveriesDone()); ) {
      if (Date.now() > deadline) throw new Error("deliveries not all DELIVERED within 30 s");
      await new Promise((r) => setTimeout(r, 200));
    }

    // Every event reached the receiver at least once, correctly signed, and each transaction's
    // statuses arrived in the order they happened (by first arrival; repeats may follow).
    const events = (
      await pool.query<{ id: string; transactionId: string; status: string }>(
        `SELECT id, payload->'data'->>'transactionId' AS "transactionId", payload->'data'->>'status' AS status
           FROM event WHERE project_id = $1 ORDER BY created_at, id`,
        [project.projectId],
      )
    ).rows;
    expect(events.length).toBeGreaterThanOrEqual(TRANSACTIONS * 3);
    const firstSeen: string[] = [];
    for (const r of hook.received) {
      const id = String(r.headers["webhook-id"]);
      const timestamp = new Date(Number(r.headers["webhook-timestamp"]) * 1000);
      expect(r.headers["webhook-signature"]).toBe(signDelivery({ secret, msgId: id, timestamp, body: r.body })["webhook-signature"]);
      if (!firstSeen.includes(id)) firstSeen.push(id);
    }
    expect(events.filter((e) => !firstSeen.includes(e.id))).toEqual([]);
    for (const t of txs) {
      const happened = events.filter((e) => e.transactionId === t.id).map((e) => e.id);
      const arrived = firstSeen.filter((id) => happened.includes(id));
      expect({ transaction: t.id, arrived }).toEqual({ transaction: t.id, arrived: happened });
      expect(events.find((e) => e.id === happened.at(-1))?.status).toBe("CONFIRMED");
    }

    // Both replicas of every kind ran jobs.
    for (const kind of KINDS) {
      expect({ kind, tookPart: ["a", "b"].map((r) => tookPart(kind, r)) }).toEqual({ kind, tookPart: [true, true] });
    }
    expect(gateways[1]!.process.hasExited()).toBe(false);
    // The load balancer had to move off the stopped gateway at least once, or the gateway never refused.
    expect(failovers).toBeGreaterThan(0);
  }, 120_000);
});
