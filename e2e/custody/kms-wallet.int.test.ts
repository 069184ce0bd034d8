import { createKmsBackend } from "@relay/custody";
import { createWalletRepository } from "@relay/db";
import { createFakeKms, type FakeKms } from "@relay/testing";
import { describeExternalKeyWallet } from "./external-key-wallet.suite";

/**
 * Wallets whose key AWS KMS keeps, end to end (external-key-wallet.suite.ts). AWS cannot run here:
 * the workers' KMS backend is the relay's own, on a KMSClient the SDK's client mock answers with a
 * fresh real secp256k1 key per CreateKey and DER signatures. KMS answers either half of s; here
 * every answer is high-s, so that each path below (transaction, personal sign, typed data, top-up)
 * must bring s to the lower half to pass (the unit tests mix both halves).
 */
describe("KMS custody (AWS SDK client mock) end to end", () => {
  let kms: FakeKms;
  const suite = describeExternalKeyWallet({
    backend: "KMS",
    chainId: 31_942,
    keyRef: /^arn:aws:kms:eu-west-1:\d{12}:key\/[0-9a-f-]{36}$/,
    open: async () => {
      kms = createFakeKms({ highS: "all" });
      const backend = createKmsBackend(kms.client);
      return {
        backend,
        close: async () => {
          await backend.close();
          kms.restore();
        },
      };
    },
  });

  it("each KMS wallet's key is one KMS made, and every signature above came from KMS's high-s answers", async () => {
    const kmsWallets = (await createWalletRepository(suite.h.db).listByProject(suite.project.projectId)).filter((w) => w.backend === "KMS");
    expect(kmsWallets.map((w) => w.address)).toEqual([suite.wallet.address]);
    // The wallet and the funding wallet: two CreateKey calls, two keys, each the address it signs for.
    expect(kms.arns()).toHaveLength(2);
    expect(kms.arns()).toContain(suite.wallet.keyRef);
    expect(kms.addressOf(suite.wallet.keyRef)).toBe(suite.wallet.address);
    // A transaction, a personal message, typed data and a top-up at least, each answered high-s,
    // which Ethereum refuses unless the relay brings s to the lower half.
    const { total, highS } = kms.signatures();
    expect(total).toBeGreaterThanOrEqual(4);
    expect(highS).toBe(total);
  });

  it("refuses an HSM wallet on a relay configured for KMS only, naming the settings", async () => {
    const res = await suite.createWallet({ backend: "HSM" });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/Custody backend HSM \(a PKCS#11 HSM\) is not configured on this relay: an operator sets HSM_PKCS11_LIBRARY, HSM_TOKEN_LABEL and HSM_PIN/);
    expect(kms.arns()).toHaveLength(2);
  });
});
