import { connect } from "node:net";
import { verifyMessage } from "ethers";
import { createDatabase, createPool, type Database } from "@relay/db";
import { createProducer, createRedis, type Producer, type Redis } from "@relay/queue";
import { createProcessGroup, createProjectFixture, deleteRedisKeys, testDatabaseUrl, testKek, testQueuePrefix, type ProcessGroup, type ProjectFixture } from "@relay/testing";

type Pool = ReturnType<typeof createPool>;

const IN_FLIGHT = 5;

/** Opens a new TCP connection to `port`; resolves "refused" or "accepted". */
const tryConnect = (port: number) =>
  new Promise<string>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve("accepted");
    });
    socket.once("error", (err: NodeJS.ErrnoException) => resolve(err.code === "ECONNREFUSED" ? "refused" : `error ${err.code}`));
  });

/**
 * docs/operations.md, graceful shutdown of a gateway: after SIGTERM it refuses new connections
 * (a load balancer sends them to another gateway) while the requests it already holds run to
 * their answer, and then it exits 0. The requests in flight are personal signs waiting for a
 * signing worker that only starts after the SIGTERM, so they are certainly still open then.
 */
describe("a gateway process stopped with SIGTERM", () => {
  const kek = testKek();
  const prefix = testQueuePrefix("gateway-shutdown");
  let pool: Pool;
  let db: Database;
  let redis: Redis;
  let producer: Producer;
  let project: ProjectFixture;
  let group: ProcessGroup;

  beforeAll(async () => {
    pool = createPool({ url: testDatabaseUrl(), poolSize: 2 });
    db = createDatabase({ pool });
    redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "worker");
    producer = createProducer({ connection: redis, prefix });
    project = await createProjectFixture(db, kek);
    group = createProcessGroup({ databaseUrl: testDatabaseUrl(), queuePrefix: prefix, kek });
  });
  afterAll(async () => {
    await group?.stopAll();
    await producer?.close();
    if (redis) {
      await deleteRedisKeys(redis, prefix);
      await redis.quit();
    }
    await db?.$disconnect();
    if (pool && !pool.ended) await pool.end();
  });

  it("answers the requests in flight, refuses new connections, and exits 0", async () => {
    const { url, process: gateway } = await group.startGateway({
      logLevel: "info",
      env: { SIGN_TIMEOUT_MS: "30000", SHUTDOWN_GRACE_MS: "30000" },
    });
    const port = Number(new URL(url).port);
    const signer = project.wallets[0]!.address;
    const messages = Array.from({ length: IN_FLIGHT }, (_, i) => `shutdown test ${i}`);
    const answers = messages.map((message) =>
      fetch(`${url}/wallet/project/${project.projectId}/personalSign`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${project.apiKey}` },
        body: JSON.stringify({ signerAddress: signer, message }),
      }),
    );
    // Every request is stored and queued (in batch jobs), and waits for a signing worker that is not there yet.
    const queue = producer.queue("personalSign");
    const queuedRequests = async () => (await queue.getWaiting()).reduce((n, job) => n + (job.data as { signatures: unknown[] }).signatures.length, 0);
    for (let waited = 0; (await queuedRequests()) < IN_FLIGHT; waited += 50) {
      if (waited > 20_000) throw new Error(`requests not queued:\n${gateway.tail()}`);
      await new Promise((r) => setTimeout(r, 50));
    }

    gateway.kill("SIGTERM");
    await gateway.waitForLog((l) => l.msg.startsWith("stopping"));
    // The line is written just before the listener closes: a connection in between may still be
    // accepted (a busy machine stretches that gap), or reset when the listener closes with it still
    // in the accept backlog; the listener must be closed within moments.
    const beforeClose = (attempt: string) => attempt === "accepted" || attempt === "error ECONNRESET";
    let attempt = await tryConnect(port);
    for (const deadline = Date.now() + 2000; beforeClose(attempt) && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 20));
      attempt = await tryConnect(port);
    }
    expect(attempt).toBe("refused");
    expect(gateway.hasExited()).toBe(false);

    // The signing worker arrives; the held requests get their signatures over their own connections.
    await group.startWorker("signing-worker", "signing-worker");
    const responses = await Promise.all(answers);
    expect(responses.map((r) => r.status)).toEqual(messages.map(() => 200));
    // Keep-alive clients are told to go (to another gateway) rather than reuse this connection.
    expect(responses.map((r) => r.headers.get("connection"))).toEqual(messages.map(() => "close"));
    const bodies = (await Promise.all(responses.map((r) => r.json()))) as { signature: string; signerAddress: string }[];
    expect(bodies.map((b, i) => verifyMessage(messages[i]!, b.signature))).toEqual(messages.map(() => signer));

    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    const order = gateway.logs.map((l) => l.msg).filter((m) => m.startsWith("stopping") || m.startsWith("requests in flight") || m === "stopped");
    expect(order).toEqual(["stopping: taking no new work, finishing work in flight", "requests in flight answered; closing connections", "stopped"]);
  }, 60_000);
});
