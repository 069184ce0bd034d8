import { randomBytes, randomUUID } from "node:crypto";
import { verifyMessage, verifyTypedData } from "ethers";
import { createLogger } from "@relay/core";
import { createDatabase, createPool, createSignatureRepository, createWalletRepository, typedDataMessage } from "@relay/db";
import { createLocalSigner, type Signer } from "@relay/custody";
import { createProducer, createRedis, createResultWaiter, jobIdOf, type WorkerGroup } from "@relay/queue";
import { createProjectFixture, deleteRedisKeys, testDatabaseUrl, testKek, testQueuePrefix } from "@relay/testing";
import { createSigningWorker } from "./worker";
import { createSweepSignaturesProcessor } from "./processors/sweep-signatures.processor";
import type { LegacyBatchResult, PersonalSignBatchResult } from "./processors/personal-sign.processor";

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

  const startWorker = async (personal: Pick<Signer, "signMessage"> & Partial<Pick<Signer, "signTypedData">>) => {
    const signer = { signTypedData: () => Promise.reject(new Error("no typed data in this test")), ...personal };
    worker = createSigningWorker({ sql: pool, redis: workerRedis, signer, logger, queuePrefix: prefix, concurrency: 4 });
    await worker.ready();
  };
  /**
   * Stores a pending request per message (each of a new project, under `ids[i]` when given) and
   * enqueues them as one batch job, as the gateway does.
   */
  const requestBatch = async (messages: string[], options: { deleteBeforeEnqueue?: number[]; ids?: string[]; signWithinMs?: number } = {}) => {
    const stored = [];
    for (const [i, message] of messages.entries()) {
      const project = await createProjectFixture(db, kek);
      const wallet = project.wallets[0]!;
      const id = options.ids?.[i] ?? randomUUID();
      const content = { walletId: wallet.id, message: new TextEncoder().encode(message) };
      await signatures.insertPending({ id, projectId: project.projectId, ...content });
      if (options.deleteBeforeEnqueue?.includes(i)) await signatures.deletePending({ projectId: project.projectId, id }, content);
      stored.push({ id, projectId: project.projectId, wallet, message });
    }
    const signaturesOfJob = stored.map((r) => ({ projectId: r.projectId, signatureId: r.id, ...(options.signWithinMs === undefined ? {} : { signWithinMs: options.signWithinMs }) }));
    const payload = { v: 3 as const, batch: randomBytes(8).toString("hex"), signatures: signaturesOfJob };
    const finished = results.expect(jobIdOf("personalSign", payload), 10_000) as Promise<PersonalSignBatchResult>;
    finished.catch(() => undefined);
    const job = await producer.enqueue("personalSign", payload);
    return { requests: stored, finished, job };
  };
  const request = async (message: string, options: { deleteBeforeEnqueue?: boolean } = {}) => {
    const { requests, finished, job } = await requestBatch([message], { deleteBeforeEnqueue: options.deleteBeforeEnqueue ? [0] : [] });
    const { id, projectId, wallet } = requests[0]!;
    return { id, projectId, wallet, job, finished: finished.then((r) => r.results[0]!) };
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
    const { id, projectId, wallet, finished } = await request("sign me");
    const result = (await finished) as { outcome: string; signature: string };
    expect(result.outcome).toBe("signed");
    expect(verifyMessage("sign me", result.signature)).toBe(wallet.address);
    expect(await signatures.findById(projectId, id)).toMatchObject({ status: "SIGNED", signature: result.signature });
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
    const { id, projectId, finished } = await request("flaky");
    expect(((await finished) as { outcome: string }).outcome).toBe("signed");
    expect(calls).toBe(2); // the failed attempt and the successful retry
    expect((await signatures.findById(projectId, id))?.status).toBe("SIGNED");
  });

  it("fails a request at once, without retries, when the key cannot be opened, and stores no signature", async () => {
    // A worker holding the wrong key-encryption key: authentication of the sealed key fails.
    await startWorker(createLocalSigner(testKek(), { loadKey: createWalletRepository(db).findWithKey }));
    const { id, projectId, finished, job } = await request("wrong kek");
    expect(await finished).toEqual({ outcome: "failed", reason: expect.stringMatching(/failed authentication/) });
    const done = await producer.queue("personalSign").getJob(job.id!);
    expect(done).toBeUndefined(); // completed (each request has its answer) and removed, not retried
    expect((await signatures.findById(projectId, id))?.status).toBe("PENDING");
  });

  it("signs a batch in one job: each request its own signature, a gone one reported, not signed", async () => {
    await startWorker(createLocalSigner(kek, { loadKey: createWalletRepository(db).findWithKey }));
    const { requests, finished } = await requestBatch(["one", "two", "three", "four"], { deleteBeforeEnqueue: [2] });
    const { results: outcome } = await finished;
    expect(outcome).toHaveLength(requests.length);
    for (const [i, r] of requests.entries()) {
      if (i === 2) {
        expect(outcome[i]).toEqual({ outcome: "gone" });
        expect(await signatures.findById(r.projectId, r.id)).toBeNull();
        continue;
      }
      const result = outcome[i] as { outcome: string; signature: string };
      expect(result.outcome).toBe("signed");
      expect(verifyMessage(r.message, result.signature)).toBe(r.wallet.address);
      expect(await signatures.findById(r.projectId, r.id)).toMatchObject({ status: "SIGNED", signature: result.signature });
    }
  });

  it("does not sign a request past its window (its gateway has answered by then): it stays PENDING for the gateway's clean-up", async () => {
    const { requests, finished } = await requestBatch(["too late"], { signWithinMs: 1 });
    await new Promise((r) => setTimeout(r, 50)); // the worker starts after the window
    await startWorker(createLocalSigner(kek, { loadKey: createWalletRepository(db).findWithKey }));
    const { results: outcome } = await finished;
    expect(outcome).toEqual([{ outcome: "gone" }]);
    expect(await signatures.findById(requests[0]!.projectId, requests[0]!.id)).toMatchObject({ status: "PENDING", signature: null });
  });

  it("signs two projects' requests under one signatureId in one batch, each with its own wallet", async () => {
    await startWorker(createLocalSigner(kek, { loadKey: createWalletRepository(db).findWithKey }));
    const id = randomUUID();
    const { requests, finished } = await requestBatch(["first project's", "second project's"], { ids: [id, id] });
    const { results: outcome } = await finished;
    for (const [i, r] of requests.entries()) {
      const result = outcome[i] as { outcome: string; signature: string };
      expect(verifyMessage(r.message, result.signature)).toBe(r.wallet.address);
      expect(await signatures.findById(r.projectId, id)).toMatchObject({ status: "SIGNED", signature: result.signature });
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
    expect(outcome[1]).toEqual({ outcome: "failed", reason: expect.stringMatching(/failed authentication/) });
    expect((await signatures.findById(requests[1]!.projectId, requests[1]!.id))?.status).toBe("PENDING");
    for (const i of [0, 2]) expect(outcome[i]!.outcome).toBe("signed");
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

  it("still signs a v2 job (a batch naming no projects, from a gateway before signatureIds were per project) and answers by signatureId", async () => {
    await startWorker(createLocalSigner(kek, { loadKey: createWalletRepository(db).findWithKey }));
    const [project, other, third] = [await createProjectFixture(db, kek), await createProjectFixture(db, kek), await createProjectFixture(db, kek)];
    const [id, gone, shared] = [randomUUID(), randomUUID(), randomUUID()];
    const store = (p: typeof project, signatureId: string, message: string) =>
      signatures.insertPending({ id: signatureId, projectId: p.projectId, walletId: p.wallets[0]!.id, message: new TextEncoder().encode(message) });
    await store(project, id, "v2");
    // An id two projects hold: the job does not say which record it meant, so it signs neither.
    await store(other, shared, "other's");
    await store(third, shared, "third's");
    const payload = { v: 2 as const, batch: randomBytes(8).toString("hex"), signatures: [{ signatureId: id }, { signatureId: gone }, { signatureId: shared }] };
    const finished = results.expect(jobIdOf("personalSign", payload), 10_000) as Promise<LegacyBatchResult>;
    await producer.enqueue("personalSign", payload);
    const { results: outcome } = await finished;
    expect(verifyMessage("v2", (outcome[id] as { signature: string }).signature)).toBe(project.wallets[0]!.address);
    expect(outcome[gone]).toEqual({ outcome: "gone" });
    expect(outcome[shared]).toEqual({ outcome: "failed", reason: expect.stringMatching(/used by more than one project/) });
    expect((await signatures.findById(other.projectId, shared))?.status).toBe("PENDING");
    expect((await signatures.findById(third.projectId, shared))?.status).toBe("PENDING");
  });

  it("skips a request whose record is gone (given up by the gateway) without signing", async () => {
    let signed = 0;
    await startWorker({ signMessage: async () => (signed++, "0x") });
    const { id, projectId, finished } = await request("gone", { deleteBeforeEnqueue: true });
    expect(((await finished) as { outcome: string }).outcome).toBe("gone");
    expect(signed).toBe(0);
    expect(await signatures.findById(projectId, id)).toBeNull();
  });

  it("signs a typed-data record's EIP-712 digest when the job names its kind, and no record of the other kind", async () => {
    await startWorker(createLocalSigner(kek, { loadKey: createWalletRepository(db).findWithKey }));
    const project = await createProjectFixture(db, kek);
    const wallet = project.wallets[0]!;
    const typed = {
      domain: { name: "worker", chainId: 1 },
      types: { Item: [{ name: "n", type: "uint256" }], Order: [{ name: "items", type: "Item[]" }, { name: "memo", type: "string" }] },
      primaryType: "Order",
      message: { items: [{ n: "1" }, { n: 2 }], memo: "✓" },
    };
    const [asked, mismatched, personal] = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of [asked, mismatched]) await signatures.insertPending({ id, projectId: project.projectId, walletId: wallet.id, message: typedDataMessage(JSON.stringify(typed)) });
    await signatures.insertPending({ id: personal, projectId: project.projectId, walletId: wallet.id, message: new TextEncoder().encode("plain") });
    const payload = {
      v: 3 as const,
      batch: randomBytes(8).toString("hex"),
      signatures: [
        { projectId: project.projectId, signatureId: asked, kind: "TYPED_DATA" as const },
        // A job that asks for a personal signature of a typed-data record, and the other way round.
        { projectId: project.projectId, signatureId: mismatched },
        { projectId: project.projectId, signatureId: personal, kind: "TYPED_DATA" as const },
      ],
    };
    const finished = results.expect(jobIdOf("personalSign", payload), 10_000) as Promise<PersonalSignBatchResult>;
    await producer.enqueue("personalSign", payload);
    const [signed, gone, alsoGone] = (await finished).results;
    expect(signed).toMatchObject({ outcome: "signed", walletId: wallet.id, kind: "TYPED_DATA" });
    const signature = (signed as { signature: string }).signature;
    expect(verifyTypedData(typed.domain, typed.types, typed.message, signature)).toBe(wallet.address);
    expect(await signatures.findById(project.projectId, asked)).toMatchObject({ status: "SIGNED", signature });
    expect([gone, alsoGone]).toEqual([{ outcome: "gone" }, { outcome: "gone" }]);
    expect((await signatures.findById(project.projectId, mismatched))?.status).toBe("PENDING");
    expect((await signatures.findById(project.projectId, personal))?.status).toBe("PENDING");
  });

  it("sweeps requests abandoned as PENDING, and only those", async () => {
    const project = await createProjectFixture(db, kek);
    const [old, fresh, signed] = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of [old, fresh, signed]) {
      await signatures.insertPending({ id, projectId: project.projectId, walletId: project.wallets[0]!.id, message: new Uint8Array([1]) });
    }
    await signatures.markSigned({ projectId: project.projectId, id: signed }, "0xsig", { walletId: project.wallets[0]!.id, message: new Uint8Array([1]) });
    await pool.query(`UPDATE signature SET created_at = now() - interval '11 minutes' WHERE id = ANY($1)`, [[old, signed]]);

    const sweep = createSweepSignaturesProcessor({ signatures, abandonedAfterMs: 10 * 60_000 });
    const result = await sweep({ v: 1 }, { job: undefined as never, logger });
    expect(result).toEqual({ removed: 1 });
    expect(await signatures.findById(project.projectId, old)).toBeNull();
    expect(await signatures.findById(project.projectId, fresh)).not.toBeNull();
    expect((await signatures.findById(project.projectId, signed))?.status).toBe("SIGNED");
  });
});
