import { randomBytes } from "node:crypto";
import { verifyMessage } from "ethers";
import { Webhook } from "standardwebhooks";
import { Cluster } from "ioredis";
import {
  addChain,
  createProjectFixture,
  createTestDatabase,
  deployRecorder,
  fund,
  startAnvil,
  startRedisCluster,
  waitForStatus,
  type AnvilInstance,
  type ProjectFixture,
  type TestDatabase,
  type TestRedisCluster,
} from "@relay/testing";
import { post, startHarness, type Harness } from "../support/harness";
import { receiver, until } from "../support/webhook-receiver";

const keySlot: (key: string) => number = require("cluster-key-slot");

/**
 * The relay on a Redis Cluster (three masters, three replicas) as REDIS_CLUSTER_NODES configures
 * it: the gateway and the signing, transaction and webhook workers on ioredis' Cluster client with
 * a hash-tagged queue prefix. A transaction confirms on chain, a message is signed, and the
 * transaction's events reach a receiver signed per Standard Webhooks.
 */
describe("the relay on a Redis Cluster", () => {
  let cluster: TestRedisCluster;
  let anvil: AnvilInstance;
  let recorder: Awaited<ReturnType<typeof deployRecorder>>;
  let database: TestDatabase;
  let h: Harness;
  let project: ProjectFixture;
  const tag = `relay-test-${randomBytes(4).toString("hex")}`;

  beforeAll(async () => {
    [cluster, anvil] = await Promise.all([startRedisCluster(), startAnvil({ chainId: 31_431 })]);
    recorder = await deployRecorder(anvil.rpcUrl);
    // The webhook dispatcher claims every project's events: a database of its own.
    database = await createTestDatabase({ migrate: true });
    h = await startHarness(
      "redis-cluster",
      {},
      { databaseUrl: database.url, redis: { redisUrl: "redis://127.0.0.1:1", redisClusterNodes: cluster.seeds }, queuePrefix: `{${tag}}` },
    );
    await addChain(h.db, anvil);
    project = await createProjectFixture(h.db, h.kek, { wallets: 2 });
    await fund(anvil.rpcUrl, [project.wallets[0]!.address]);
    await h.startTxWorker();
    await h.startWebhookWorker();
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    recorder?.provider.destroy();
    await anvil?.stop();
    await database?.drop();
    await cluster?.stop();
  });

  it("runs on ioredis' Cluster client, every key of the relay on the one master of the tag's slot", async () => {
    expect(h.redis).toBeInstanceOf(Cluster);
    const masters = (h.redis as Cluster).nodes("master");
    expect(masters).toHaveLength(3);
    const keysByMaster = await Promise.all(masters.map((m) => m.keys(`{${tag}}*`)));
    expect(keysByMaster.filter((keys) => keys.length > 0)).toHaveLength(1);
    expect(new Set(keysByMaster.flat().map(keySlot))).toEqual(new Set([keySlot(tag)]));
  });

  it("signs a personal message", async () => {
    const signer = project.wallets[1]!.address;
    const res = await post(h.baseUrl, `/wallet/project/${project.projectId}/personalSign`, { signerAddress: signer, message: "on a cluster" }, project.apiKey);
    expect(res.status).toBe(200);
    expect(verifyMessage("on a cluster", res.body.signature as string)).toBe(signer);
  }, 30_000);

  it("confirms a sendTransaction on chain and delivers its events, signed, to the project's receiver", async () => {
    const hook = await receiver();
    try {
      const registration = await post(
        h.baseUrl,
        `/webhook/project/${project.projectId}/eventCallback`,
        { callbackURL: hook.url, eventType: "TransactionStatusChange" },
        project.apiKey,
      );
      expect(registration.status).toBe(200);
      const sent = await post(
        h.baseUrl,
        "/transact/sendTransaction",
        { projectId: project.projectId, chainId: anvil.chainId, contractAddress: recorder.address, functionSignature: "spend(uint256 n)", args: { n: 1 } },
        project.apiKey,
      );
      expect(sent.status).toBe(200);
      const id = sent.body.transactionId as string;
      const final = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id);
      expect(final.status).toBe("CONFIRMED");
      const receipt = await recorder.provider.getTransactionReceipt(final.attempts.at(-1)!.hash);
      expect(receipt?.status).toBe(1);

      await until(() => hook.received.length >= 3);
      const webhook = new Webhook(registration.body.secret as string);
      const events = hook.received.map((r) => webhook.verify(r.body, r.headers as Record<string, string>) as { data: { transactionId: string; status: string } });
      expect(events.map((e) => e.data.status)).toEqual(["PENDING", "SUBMITTED", "CONFIRMED"]);
      expect(events.every((e) => e.data.transactionId === id)).toBe(true);
    } finally {
      await hook.close();
    }
  }, 60_000);
});
