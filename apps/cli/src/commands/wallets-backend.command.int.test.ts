import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKmsBackend, openPkcs11Backend, type ExternalKeyBackend } from "@relay/custody";
import { createWalletRepository, type Database } from "@relay/db";
import { createFakeKms, createSoftHsmToken, type SoftHsmToken } from "@relay/testing";
import { createCliHarness, openTestDatabase, randomKek } from "../cli-harness";

interface WalletView {
  id: string;
  address: string;
  backend: string;
}

/** `wallets create --backend hsm|kms`: the key is made in its backend; the record names it and keeps no key. */
describe("relay wallets create --backend", () => {
  let db: Database;
  let token: SoftHsmToken;
  let hsm: ExternalKeyBackend;
  const kms = createFakeKms();
  let project: { id: string; name: string };

  beforeAll(async () => {
    db = openTestDatabase();
    token = await createSoftHsmToken();
    hsm = openPkcs11Backend({ library: token.library, tokenLabel: token.tokenLabel, pin: token.pin });
    const cli = createCliHarness(db, { kek: randomKek() });
    project = await cli.json("projects", "create", `backends-${randomUUID()}`);
  });
  afterAll(async () => {
    await hsm?.close();
    await token?.remove();
    kms.restore();
    await db.$disconnect();
  });

  it("creates HSM, KMS and LOCAL wallets; the list shows each one's backend", async () => {
    const cli = createCliHarness(db, { kek: randomKek(), custody: { hsm, kms: createKmsBackend(kms.client) } });
    const inHsm = await cli.json<WalletView>("wallets", "create", "--project", project.name, "--backend", "hsm");
    const inKms = await cli.json<WalletView>("wallets", "create", "--project", project.name, "--backend", "KMS");
    const local = await cli.json<WalletView>("wallets", "create", "--project", project.name);
    expect([inHsm.backend, inKms.backend, local.backend]).toEqual(["HSM", "KMS", "LOCAL"]);
    const [arn] = kms.arns();
    expect(inKms.address).toBe(kms.addressOf(arn!));

    const wallets = createWalletRepository(db);
    const stored = (await wallets.findWithKey(inHsm.id))!;
    expect(stored).toMatchObject({ backend: "HSM", encryptedKey: null, keyRef: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(await wallets.findWithKey(inKms.id)).toMatchObject({ backend: "KMS", encryptedKey: null, keyRef: arn });
    // The key is the token's: the backend finds it by its CKA_ID and it answers the stored address.
    await expect(hsm.signerFor({ id: inHsm.id, address: inHsm.address, keyRef: stored.keyRef! })).resolves.toBeDefined();

    const listed = await cli.run("wallets", "list", "--project", project.name);
    expect(listed.stdout).toMatch(/BACKEND/);
    for (const [w, backend] of [[inHsm, "HSM"], [inKms, "KMS"], [local, "LOCAL"]] as const) {
      expect(listed.stdout).toMatch(new RegExp(`${w.address}\\s+BROADCAST\\s+${backend}`));
    }
  });

  it("says which settings an unconfigured backend needs, and rejects an unknown one", async () => {
    const cli = createCliHarness(db, { kek: randomKek() });
    expect(await cli.fails("wallets", "create", "--project", project.name, "--backend", "hsm")).toMatch(/HSM_PKCS11_LIBRARY, HSM_TOKEN_LABEL and HSM_PIN/);
    expect(await cli.fails("wallets", "create", "--project", project.name, "--backend", "kms")).toMatch(/KMS_REGION/);
    expect(await cli.fails("wallets", "create", "--project", project.name, "--backend", "vault")).toMatch(/--backend "vault" is not a custody backend: use local, hsm or kms/);
  });

  it("refuses export-key for a wallet whose key is in an HSM, and reseal leaves it alone", async () => {
    const kek = randomKek();
    const cli = createCliHarness(db, { kek, custody: { hsm } });
    const inHsm = await cli.json<WalletView>("wallets", "create", "--project", project.name, "--backend", "hsm");
    await cli.json("wallets", "retire", "--project", project.name, "--address", inHsm.address);
    const dir = await mkdtemp(join(tmpdir(), "relay-cli-"));
    try {
      const error = await cli.fails("wallets", "export-key", "--project", project.name, "--address", inHsm.address, "--out", join(dir, "key"), "--i-understand-this-reveals-the-key");
      expect(error).toMatch(/export-key applies to LOCAL wallets only: wallet 0x[0-9a-fA-F]{40}'s key is kept in HSM and cannot be read out/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    // Other tests' LOCAL wallets are sealed under other keys: reseal reports them unopened, and
    // never names an HSM wallet among them.
    const resealed = await cli.run("wallets", "reseal");
    expect(resealed.stderr).not.toContain(inHsm.id);
  });
});
