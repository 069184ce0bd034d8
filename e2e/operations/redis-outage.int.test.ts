import { randomUUID } from "node:crypto";
import { createDatabase, createPool, type Database } from "@relay/db";
import {
  addChain,
  createProcessGroup,
  createProjectFixture,
  createTestDatabase,
  deployRecorder,
  freePort,
  fund,
  startAnvil,
  startPrivateRedis,
  testKek,
  testQueuePrefix,
  type AnvilInstance,
  type PrivateRedis,
  type ProcessGroup,
  type ProjectFixture,
  type TestDatabase,
} from "@relay/testing";
import { SET_ORDER, sendTransaction } from "../support/transactions";
import { post } from "../support/harness";

type Pool = ReturnType<typeof createPool>;

/**
 * DESIGN.md: Redis is a delivery mechanism, not a store. A gateway started while Redis is down
 * serves: it stays in the balancer (/ready "degraded"), takes sendTransaction into Postgres and
 * answers personal signs 500; once Redis is back, the tx-worker's reconciler sends what it took.
 */
describe("a gateway started while Redis is down", () => {
  const kek = testKek();
  const prefix = testQueuePrefix("redis-outage");
  let database: TestDatabase;
  let anvil: AnvilInstance;
  let pool: Pool;
  let db: Database;
  let project: ProjectFixture;
  let group: ProcessGroup;
  let redisPort: number;
  let redis: PrivateRedis | undefined;

  beforeAll(async () => {
    // A database of its own: the reconciler takes every project's transactions.
    [database, anvil] = await Promise.all([createTestDatabase({ migrate: true }), startAnvil({ chainId: 31_714 })]);
    pool = createPool({ url: database.url, poolSize: 2 });
    db = createDatabase({ pool });
    await addChain(db, anvil);
    project = await createProjectFixture(db, kek, { wallets: 1 });
    await fund(anvil.rpcUrl, project.wallets.map((w) => w.address));
    redisPort = await freePort();
    group = createProcessGroup({ databaseUrl: database.url, queuePrefix: prefix, kek, redisUrl: `redis://127.0.0.1:${redisPort}` });
  }, 60_000);
  afterAll(async () => {
    await group?.stopAll();
    await redis?.stop();
    await db?.$disconnect();
    await database?.drop();
    await anvil?.stop();
  });

  it("serves without it, and the transaction it took is confirmed once Redis is back", async () => {
    const recorder = await deployRecorder(anvil.rpcUrl);
    const { url } = await group.startGateway();
    const ready = await fetch(`${url}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "degraded", checks: { postgres: "ok", redis: "unavailable" } });

    const requestId = randomUUID();
    const orderId = "42";
    const accepted = await sendTransaction(url, project.apiKey, {
      projectId: project.projectId,
      requestId,
      chainId: anvil.chainId,
      contractAddress: recorder.address,
      functionSignature: SET_ORDER,
      args: { order: { id: orderId, owner: project.wallets[0]!.address, flags: [1] } },
    });
    expect(accepted).toEqual({ status: 200, body: { transactionId: requestId } });
    const signed = await post(url, `/wallet/project/${project.projectId}/personalSign`, { signerAddress: project.wallets[0]!.address, message: "hi" }, project.apiKey);
    expect(signed.status).toBe(500);
    expect(signed.body.message).toEqual(expect.any(String));

    // Redis comes back (empty); a tx-worker starts on it. Nothing was ever enqueued for the transaction.
    redis = await startPrivateRedis(redisPort);
    await group.startTxWorker("tx-worker", { env: { TX_RECONCILE_AFTER_MS: "1000" } });
    const statusOf = async () => (await pool.query<{ status: string }>(`SELECT status FROM transaction WHERE id = $1`, [requestId])).rows[0]?.status;
    const deadline = Date.now() + 60_000;
    while ((await statusOf()) !== "CONFIRMED" && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    expect(await statusOf()).toBe("CONFIRMED");
    const order = (await recorder.contract.getFunction("lastOrder")()) as { id: bigint; owner: string };
    recorder.provider.destroy();
    expect([order.id, order.owner]).toEqual([BigInt(orderId), project.wallets[0]!.address]);
  }, 120_000);
});
