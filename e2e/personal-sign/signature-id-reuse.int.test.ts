import { randomUUID } from "node:crypto";
import { verifyMessage } from "ethers";
import { createLogger } from "@relay/core";
import { createLocalSigner } from "@relay/custody";
import { createPool, createWalletRepository } from "@relay/db";
import { createRedis, type WorkerGroup } from "@relay/queue";
import { createSigningWorker } from "@relay/signing-worker";
import { createProjectFixture, testDatabaseUrl } from "@relay/testing";
import { post, startHarness, type Harness } from "../support/harness";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A personal sign that timed out leaves nothing stored, and its signatureId may then be used
 * again, also for another wallet and message (docs/architecture.md, "Personal sign"). Requests and
 * workers still busy with the first record must not hand its signature to the second, nor the
 * second's to a retry of the first (found in an audit on 2026-11-25: both happened).
 */
describe("a signatureId used again after a time-out", () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness("signature-id-reuse", { signTimeoutMs: 1500 });
  });
  afterAll(async () => {
    await h.close();
  });

  const stored = (projectId: string, id: string) => h.db.signature.findUnique({ where: { projectId_id: { projectId, id } } });
  const storedOnceExists = async (projectId: string, signatureId: string) => {
    for (let i = 0; i < 400 && !(await stored(projectId, signatureId)); i++) await sleep(5);
  };

  it("a retry still waiting when the id was taken by another wallet and message does not get that request's signature", async () => {
    const project = await createProjectFixture(h.db, h.kek, { wallets: 2 });
    const [w0, w1] = project.wallets as unknown as [{ address: string }, { address: string }];
    const url = `/wallet/project/${project.projectId}/personalSign`;
    const signatureId = randomUUID();
    await h.stopWorker(); // the signing workers are briefly away (a deploy)
    let restarted = false;
    try {
      // A, then B: the same request again (the client's retry), joining A's record.
      const a = post(h.baseUrl, url, { signerAddress: w0.address, message: "transfer 1 to alice", signatureId }, project.apiKey);
      await sleep(1000);
      const b = post(h.baseUrl, url, { signerAddress: w0.address, message: "transfer 1 to alice", signatureId }, project.apiKey);
      expect((await a).status).toBe(500); // A gave up and removed the record: "nothing was stored"

      // C takes the free id for another wallet and message, while B still waits.
      const c = post(h.baseUrl, url, { signerAddress: w1.address, message: "something else", signatureId }, project.apiKey);
      await storedOnceExists(project.projectId, signatureId);
      await h.startWorker();
      restarted = true;

      const [rb, rc] = await Promise.all([b, c]);
      expect(rc.status).toBe(200);
      expect(verifyMessage("something else", rc.body.signature as string)).toBe(w1.address);
      // B's request is not what the id holds now: a 500 (retry later), never C's signature.
      expect(rb.status).toBe(500);
      expect(rb.text).not.toContain(rc.body.signature as string);
      const record = await stored(project.projectId, signatureId);
      expect(verifyMessage("something else", record!.signature!)).toBe(w1.address);
    } finally {
      if (!restarted) await h.startWorker();
    }
  });

  it("a worker that read the first request before it was given up does not sign the second request's record with it", async () => {
    await h.stopWorker();
    const pool = createPool({ url: testDatabaseUrl() });
    const redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "worker");
    let worker: WorkerGroup | undefined;
    try {
      const project = await createProjectFixture(h.db, h.kek, { wallets: 2 });
      const [w0, w1] = project.wallets as unknown as [{ address: string }, { address: string }];
      const real = createLocalSigner(h.kek, { loadKey: createWalletRepository(h.db).findWithKey });
      let release!: () => void;
      const stalled = new Promise<void>((r) => (release = r));
      let stalledDone!: () => void;
      const afterStalled = new Promise<void>((r) => (stalledDone = r));
      worker = createSigningWorker({
        sql: pool,
        redis,
        logger: createLogger({ name: "stalling-worker", level: "silent" }),
        queuePrefix: h.prefix,
        concurrency: 4,
        signer: {
          // The first signing stalls past the gateway's time-out (a GC pause, a slow key load); the
          // second request's signing runs just after the stalled one finishes.
          signMessage: async (walletId, message) => {
            const text = new TextDecoder().decode(message);
            if (text === "first message") {
              await stalled;
              const signature = await real.signMessage(walletId, message);
              stalledDone();
              return signature;
            }
            if (text === "second message") await afterStalled.then(() => sleep(50));
            return real.signMessage(walletId, message);
          },
          signTypedData: (walletId, data) => real.signTypedData(walletId, data),
        },
      });
      await worker.ready();

      const signatureId = randomUUID();
      const url = `/wallet/project/${project.projectId}/personalSign`;
      const first = await post(h.baseUrl, url, { signerAddress: w0.address, message: "first message", signatureId }, project.apiKey);
      expect(first.status).toBe(500);
      expect(await stored(project.projectId, signatureId)).toBeNull();

      const second = post(h.baseUrl, url, { signerAddress: w1.address, message: "second message", signatureId }, project.apiKey);
      await storedOnceExists(project.projectId, signatureId);
      release();

      const res = await second;
      expect(res.status).toBe(200);
      expect(verifyMessage("second message", res.body.signature as string)).toBe(w1.address);
      const record = await stored(project.projectId, signatureId);
      expect(verifyMessage("second message", record!.signature!)).toBe(w1.address);
    } finally {
      await worker?.close();
      await Promise.allSettled([pool.end(), redis.quit()]);
      await h.startWorker();
    }
  });
});
