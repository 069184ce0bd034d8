import { randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import { AppError, createLogger } from "@relay/core";
import { newWalletKey, openWalletKey } from "@relay/custody";
import { createDatabase, createPool, createWalletRepository } from "@relay/db";
import { createProjectFixture, testDatabaseUrl, testKek } from "@relay/testing";
import { createCreateWalletProcessor } from "./create-wallet.processor";

describe("createWallet processor", () => {
  const pool = createPool({ url: testDatabaseUrl() });
  const db = createDatabase({ pool });
  const kek = testKek();
  const wallets = createWalletRepository(db);
  const lines: string[] = [];
  const logger = createLogger({
    name: "test",
    level: "info",
    destination: new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    }),
  });
  const keys: string[] = [];
  const process = createCreateWalletProcessor({ wallets, newKey: (backend) => newWalletKey({ kek }, backend), audit: db });
  // Disconnecting the client ends its pool.
  afterAll(() => db.$disconnect());

  it("creates one wallet per job, sealed for its record, however often the job runs", async () => {
    const project = await createProjectFixture(db, kek, { wallets: 0 });
    const payload = { v: 1 as const, projectId: project.projectId, walletId: randomUUID(), walletType: "BROADCAST" as const, backend: "LOCAL" as const };
    const runs = await Promise.all([0, 1, 2].map(() => process(payload, { logger } as never)));
    const first = runs[0] as { walletId: string; address: string };
    expect(runs).toEqual([first, first, first]);
    expect(Object.keys(first).sort()).toEqual(["address", "backend", "walletId"]);
    expect(first).toMatchObject({ backend: "LOCAL" });
    expect(first.walletId).toBe(payload.walletId);

    const listed = await wallets.listByProject(project.projectId);
    expect(listed.map((w) => w.address)).toEqual([first.address]);
    const stored = (await wallets.findWithKey(payload.walletId))!;
    const signer = openWalletKey(kek, stored);
    expect(signer.address).toBe(first.address);
    keys.push(signer.privateKey.slice(2).toLowerCase());
    // The log line names the wallet; nothing of its key.
    expect(lines.join("")).toContain(first.address);
    for (const key of keys) expect(lines.join("").toLowerCase()).not.toContain(key);
  });

  it("records the wallet's creation once, by the API key the job names, however often the job runs", async () => {
    const project = await createProjectFixture(db, kek, { wallets: 0 });
    const keyId = randomUUID();
    const payload = { v: 1 as const, projectId: project.projectId, walletId: randomUUID(), walletType: "BROADCAST" as const, backend: "LOCAL" as const, keyId };
    const runs = await Promise.all([0, 1, 2].map(() => process(payload, { logger } as never)));
    await process(payload, { logger } as never);
    const { address } = runs[0] as { address: string };
    const entries = await db.auditLog.findMany({ where: { projectId: project.projectId } });
    expect(entries).toEqual([
      expect.objectContaining({ actorType: "api_key", actorId: keyId, action: "wallet.created", walletAddress: address, subject: payload.walletId, details: expect.objectContaining({ backend: "LOCAL" }) }),
    ]);
  });

  it("refuses a job whose walletId names another project's wallet", async () => {
    const [mine, theirs] = [await createProjectFixture(db, kek, { wallets: 0 }), await createProjectFixture(db, kek)];
    await expect(process({ v: 1, projectId: mine.projectId, walletId: theirs.wallets[0]!.id, walletType: "BROADCAST", backend: "LOCAL" }, { logger } as never)).rejects.toThrow(/belongs to another project/);
    expect(await wallets.listByProject(mine.projectId)).toEqual([]);
  });

  it("answers a backend this worker is not configured for as a refusal naming its settings, and stores nothing", async () => {
    const project = await createProjectFixture(db, kek, { wallets: 0 });
    for (const [backend, settings] of [["HSM", /HSM_PKCS11_LIBRARY, HSM_TOKEN_LABEL and HSM_PIN/], ["KMS", /KMS_REGION/]] as const) {
      const result = await process({ v: 1, projectId: project.projectId, walletId: randomUUID(), walletType: "BROADCAST", backend }, { logger } as never);
      expect(result).toEqual({ refused: expect.stringMatching(settings) });
    }
    expect(await wallets.listByProject(project.projectId)).toEqual([]);
  });

  it("lets a backend's transient failure fail the run, to be retried, and stores nothing", async () => {
    const project = await createProjectFixture(db, kek, { wallets: 0 });
    const flaky = createCreateWalletProcessor({
      wallets,
      audit: db,
      newKey: async () => {
        throw new AppError("UNAVAILABLE", "HSM: generating a secp256k1 key pair failed (CKR_DEVICE_ERROR)", { retryable: true });
      },
    });
    await expect(flaky({ v: 1, projectId: project.projectId, walletId: randomUUID(), walletType: "BROADCAST", backend: "HSM" }, { logger } as never)).rejects.toMatchObject({
      code: "UNAVAILABLE",
      retryable: true,
    });
    expect(await wallets.listByProject(project.projectId)).toEqual([]);
  });
});
