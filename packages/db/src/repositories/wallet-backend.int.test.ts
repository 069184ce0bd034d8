import { randomUUID } from "node:crypto";
import { Wallet } from "ethers";
import { createProjectFixture, testDatabaseUrl, testKek } from "@relay/testing";
import { createDatabase, createPool } from "../client";
import { createWalletRepository } from "./wallet.repository";
import { storeWallet } from "./wallet-store";

const pool = createPool({ url: testDatabaseUrl(), poolSize: 2 });
const db = createDatabase({ pool });
const wallets = createWalletRepository(db);

afterAll(async () => {
  await db.$disconnect();
  if (!pool.ended) await pool.end();
});

describe("a wallet's custody backend", () => {
  test("storeWallet records the backend and the key reference of an HSM or KMS key, and no sealed key", async () => {
    const { projectId } = await createProjectFixture(db, testKek(), { wallets: 0 });
    const address = Wallet.createRandom().address;
    const stored = await storeWallet(wallets, projectId, { backend: "HSM", address, keyRef: "00ff".repeat(8) });
    expect(stored).toMatchObject({ address, backend: "HSM" });
    expect(await wallets.findWithKey(stored.id)).toMatchObject({ backend: "HSM", keyRef: "00ff".repeat(8), encryptedKey: null });
    const local = await storeWallet(wallets, projectId, { address: Wallet.createRandom().address, sealFor: (id) => `sealed-for-${id}` });
    expect(await wallets.findWithKey(local.id)).toMatchObject({ backend: "LOCAL", keyRef: null, encryptedKey: `sealed-for-${local.id}` });
    // Re-sealing reads LOCAL wallets only.
    const page = await wallets.listWithKeys({ limit: 10_000 });
    expect(page.some((w) => w.id === local.id)).toBe(true);
    expect(page.some((w) => w.id === stored.id)).toBe(false);
  });

  test("the database refuses a LOCAL wallet without its sealed key, and an HSM or KMS wallet without a reference or with a sealed key", async () => {
    const { projectId } = await createProjectFixture(db, testKek(), { wallets: 0 });
    const insert = (backend: string, encryptedKey: string | null, keyRef: string | null) =>
      pool.query(`INSERT INTO wallet (id, project_id, address, backend, encrypted_key, key_ref) VALUES ($1, $2, $3, $4::"CustodyBackend", $5, $6)`, [
        randomUUID(),
        projectId,
        Wallet.createRandom().address,
        backend,
        encryptedKey,
        keyRef,
      ]);
    for (const [backend, sealed, ref] of [
      ["LOCAL", null, null],
      ["HSM", null, null],
      ["KMS", null, null],
      ["HSM", "v1.k1.x.y.z", "ab"],
    ] as const) {
      await expect(insert(backend, sealed, ref)).rejects.toThrow(/wallet_backend_key_check/);
    }
    await expect(insert("KMS", null, "arn:aws:kms:eu-west-1:1:key/x")).resolves.toBeDefined();
    await expect(insert("LOCAL", "v1.k1.x.y.z", null)).resolves.toBeDefined();
  });
});
