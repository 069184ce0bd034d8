import { randomBytes, randomUUID } from "node:crypto";
import { verifyMessage } from "ethers";
import { createLogger } from "@relay/core";
import { createDatabase, createPool, createSignatureRepository, createWalletRepository } from "@relay/db";
import { createLocalSigner, type Signer } from "@relay/custody";
import { createProducer, createRedis, createResultWaiter, jobIdOf, type WorkerGroup } from "@relay/queue";
import { createProjectFixture, deleteRedisKeys, testDatabaseUrl, testKek, testQueuePrefix } from "@relay/testing";
import { createSigningWorker } from "./worker";
import { createSweepSignaturesProcessor } from "./processors/sweep-signatures.processor";
import type { PersonalSignBatchResult } from "./processors/personal-sign.processor";

const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

describe("signing worker", () => {
  const pool = createPool({ url: testDatabaseUrl() });
  const db = createDatabase({ pool });
  const kek = testKek();
  const prefix = testQueuePrefix("signing-worker");
  const producerRedis = createRedis(redisUrl, "worker");
  const workerRedis = createRedis(redisUrl, "worker");
  const producer = createProducer({ connection: producerRedis, prefix });
  const results = createResultWaiter("personalSign", { connection: producerRedis, prefix });
  const signatures = createSignatureRepository(pool);
  const logger = createLogger({ name: "test", level: "silent" });
  let worker: WorkerGroup | undefined;

  const startWorker = async (signer: Pick<Signer, "signMessage">) => {
    worker = createSigningWorker({ sql: pool, redis: workerRedis, signer, logger, queuePrefix: prefix, concurrency: 4 });
    await worker.ready();
  };
  /** Stores a pending request per message (each of a new project) and enqueues them as one batch job. */
  const requestBatch = async (messages: string[], options: { deleteBeforeEnqueue?: number[] } = {}) => {
    const stored = [];
    for (const [i, message] of messages.entries()) {
      const project = await createProjectFixture(db, kek);
      const wallet = project.wallets[0]!;
      const id = randomUUID();
      const content = { walletId: wallet.id, message: new TextEncoder().encode(message) };
      await signatures.insertPending({ id, projectId: project.projectId, ...content });
      if (options.deleteBeforeEnqueue?.includes(i)) await signatures.deletePending(id, content);
      stored.push({ id, wallet, message });
    }
    const payload = { v: 2 as const, batch: randomBytes(8).toString("hex"), signatures: stored.map((r) => ({ signatureId: r.id })) };
    const finished = results.expect(jobIdOf("personalSign", payload), 10_000) as Promise<PersonalSignBatchResult>;
    finished.catch(() => undefined);
    const job = await producer.enqueue("personalSign", payload);
    return { requests: stored, finished, job };
  };
  const request = async (message: string, options: { deleteBeforeEnqueue?: boolean } = {}) => {
    const { requests, finished, job } = await requestBatch([message], { deleteBeforeEnqueue: options.deleteBeforeEnqueue ? [0] : [] });
    const { id, wallet } = requests[0]!;
    return { id, wallet, job, finished: finished.then((r) => r.results[id]!) };
  };

  beforeAll(() => results.ready());
  afterEach(async () => {
    await worker?.close();
    worker = undefined;
  });
  afterAll(async () => {
    await results.close();
    await producer.close();
    await deleteRedisKeys(producerRedis, prefix);
    await Promise.allSettled([producerRedis.quit(), workerRedis.quit(), db.$disconnect()]);
  });

  it("signs a pending request and stores the signature", async () => {
    await startWorker(createLocalSigner(kek, { loadKey: createWalletRepository(db).findWithKey }));
    const { id, wallet, finished } = await request("sign me");
    const result = (await finished) as { outcome: string; signature: string };
    expect(result.outcome).toBe("signed");
    expect(verifyMessage("sign me", result.signature)).toBe(wallet.address);
    expect(await signatures.findById(id)).toMatchObject({ status: "SIGNED", signature: result.signature });
  });

  it("retries a transient failure and then succeeds", async () => {
    const real = createLocalSigner(kek, { loadKey: createWalletRepository(db).findWithKey });
    let calls = 0;
    await startWorker({
      signMessage: async (walletId, message) => {
        calls++;
        if (calls === 1) throw new Error("connection reset (transient)");
        return real.signMessage(walletId, message);
      },
    });
    const { id, finished } = await request("flaky");
    expect(((await finished) as { outcome: string }).outcome).toBe("signed");
    expect(calls).toBe(2); // the failed attempt and the successful retry
    expect((await signatures.findById(id))?.status).toBe("SIGNED");
  });

  it("fails a request at once, without retries, when the key cannot be opened, and stores no signature", async () => {
    // A worker holding the wrong key-encryption key: authentication of the sealed key fails.
    await startWorker(createLocalSigner(testKek(), { loadKey: createWalletRepository(db).findWithKey }));
    const { id, finished, job } = await request("wrong kek");
    expect(await finished).toEqual({ outcome: "failed", reason: expect.stringMatching(/failed authentication/) });
    const done = await producer.queue("personalSign").getJob(job.id!);
    expect(done).toBeUndefined(); // completed (each request has its answer) and removed, not retried
    expect((await signatures.findById(id))?.status).toBe("PENDING");
  });

  it("signs a batch in one job: each request its own signature, a gone one reported, not signed", async () => {
    await startWorker(createLocalSigner(kek, { loadKey: createWalletRepository(db).findWithKey }));
    const { requests, finished } = await requestBatch(["one", "two", "three", "four"], { deleteBeforeEnqueue: [2] });
    const { results: outcome } = await finished;
    expect(Object.keys(outcome).sort()).toEqual(requests.map((r) => r.id).sort());
    for (const [i, r] of requests.entries()) {
      if (i === 2) {
        expect(outcome[r.id]).toEqual({ outcome: "gone" });
        expect(await signatures.findById(r.id)).toBeNull();
        continue;
      }
      const result = outcome[r.id] as { outcome: string; signature: string };
      expect(result.outcome).toBe("signed");
      expect(verifyMessage(r.message, result.signature)).toBe(r.wallet.address);
      expect(await signatures.findById(r.id)).toMatchObject({ status: "SIGNED", signature: result.signature });
    }
  });

  it("fails only the request whose key cannot be opened; the rest of its batch is signed", async () => {
    const real = createLocalSigner(kek, { loadKey: createWalletRepository(db).findWithKey });
    const wrongKek = createLocalSigner(testKek(), { loadKey: createWalletRepository(db).findWithKey });
    const brokenMessage = new TextEncoder().encode("broken");
    await startWorker({
      signMessage: (walletId, message) => (Buffer.compare(message, brokenMessage) === 0 ? wrongKek : real).signMessage(walletId, message),
    });
    const { requests, finished } = await requestBatch(["fine", "broken", "fine too"]);
    const { results: outcome } = await finished;
    expect(outcome[requests[1]!.id]).toEqual({ outcome: "failed", reason: expect.stringMatching(/failed authentication/) });
    expect((await signatures.findById(requests[1]!.id))?.status).toBe("PENDING");
    for (const i of [0, 2]) expect(outcome[requests[i]!.id]!.outcome).toBe("signed");
  });

  it("still signs a v1 job (one request, from a gateway before batching) and answers in the v1 shape", async () => {
    await startWorker(createLocalSigner(kek, { loadKey: createWalletRepository(db).findWithKey }));
    const project = await createProjectFixture(db, kek);
    const id = randomUUID();
    await signatures.insertPending({ id, projectId: project.projectId, walletId: project.wallets[0]!.id, message: new TextEncoder().encode("v1") });
    const payload = { v: 1 as const, signatureId: id, attempt: randomBytes(6).toString("hex") };
    const finished = results.expect(jobIdOf("personalSign", payload), 10_000);
    await producer.enqueue("personalSign", payload);
    const result = (await finished) as { outcome: string; signature: string };
    expect(result.outcome).toBe("signed");
    expect(verifyMessage("v1", result.signature)).toBe(project.wallets[0]!.address);
  });

  it("skips a request whose record is gone (given up by the gateway) without signing", async () => {
    let signed = 0;
    await startWorker({ signMessage: async () => (signed++, "0x") });
    const { id, finished } = await request("gone", { deleteBeforeEnqueue: true });
    expect(((await finished) as { outcome: string }).outcome).toBe("gone");
    expect(signed).toBe(0);
    expect(await signatures.findById(id)).toBeNull();
  });

  it("sweeps requests abandoned as PENDING, and only those", async () => {
    const project = await createProjectFixture(db, kek);
    const [old, fresh, signed] = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of [old, fresh, signed]) {
      await signatures.insertPending({ id, projectId: project.projectId, walletId: project.wallets[0]!.id, message: new Uint8Array([1]) });
    }
    await signatures.markSigned(signed, "0xsig", { walletId: project.wallets[0]!.id, message: new Uint8Array([1]) });
    await pool.query(`UPDATE signature SET created_at = now() - interval '11 minutes' WHERE id = ANY($1)`, [[old, signed]]);

    const sweep = createSweepSignaturesProcessor({ signatures, abandonedAfterMs: 10 * 60_000 });
    const result = await sweep({ v: 1 }, { job: undefined as never, logger });
    expect(result).toEqual({ removed: 1 });
    expect(await signatures.findById(old)).toBeNull();
    expect(await signatures.findById(fresh)).not.toBeNull();
    expect((await signatures.findById(signed))?.status).toBe("SIGNED");
  });
});
