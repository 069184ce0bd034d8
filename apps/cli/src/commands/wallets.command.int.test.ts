import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Wallet } from "ethers";
import { openWalletKey } from "@relay/custody";
import { createDatabase, createWalletRepository, type Database } from "@relay/db";
import { createTestDatabase } from "@relay/testing";
import { createCliHarness, openTestDatabase, randomKek } from "../cli-harness";
import { createKekLoader } from "../kek";

interface WalletView {
  id: string;
  projectId: string;
  address: string;
  walletType: string;
  isActive: boolean;
  retiredAt: string | null;
  createdAt: string;
  updatedAt: string;
}

describe("relay wallets", () => {
  const kek = randomKek();
  let db: Database;
  let cli: ReturnType<typeof createCliHarness>;
  let project: { id: string; name: string };

  beforeAll(async () => {
    db = openTestDatabase();
    cli = createCliHarness(db, { kek });
    project = await cli.json("projects", "create", `wallets-${randomUUID()}`);
  });
  afterAll(() => db.$disconnect());

  /** A key must appear in no output, in any spelling. */
  const expectNoKey = (text: string, privateKey: string) => {
    const hex = privateKey.replace(/^0x/, "").toLowerCase();
    expect(text.toLowerCase()).not.toContain(hex);
    expect(text).not.toContain(Buffer.from(hex, "hex").toString("base64"));
  };

  it("creates a wallet whose stored ciphertext opens to the listed address", async () => {
    const created = await cli.json<WalletView>("wallets", "create", "--project", project.name);
    const listed = await cli.json<WalletView[]>("wallets", "list", "--project", project.id);
    expect(listed).toContainEqual(created);

    const stored = await createWalletRepository(db).findWithKey(created.id);
    expect(stored?.encryptedKey).toMatch(/^v1\.cli-test\./);
    const signer = openWalletKey(kek, stored!);
    expect(signer.address).toBe(created.address);
  });

  it("imports a key from stdin without ever printing it", async () => {
    const key = Wallet.createRandom();
    const importer = createCliHarness(db, { kek, stdin: `${key.privateKey.slice(2)}\n` });
    const json = await importer.run("wallets", "import", "--project", project.name, "--json");
    const human = await createCliHarness(db, { kek, stdin: key.privateKey }).run("wallets", "import", "--project", project.name);

    expect(json.code).toBe(0);
    const imported = JSON.parse(json.stdout) as WalletView;
    expect(imported).toMatchObject({ projectId: project.id, address: key.address });
    const stored = await createWalletRepository(db).findWithKey(imported.id);
    expect(openWalletKey(kek, stored!).privateKey).toBe(key.privateKey);

    // The second import of the same key is refused, and says why without the key.
    expect(human.code).toBe(1);
    expect(human.stderr).toBe(`error: Wallet ${key.address} is already in this project (id ${imported.id}): nothing to do\n`);
    for (const text of [json.stdout, json.stderr, human.stdout, human.stderr, stored!.encryptedKey!]) expectNoKey(text, key.privateKey);
  });

  it("reads the key from --private-key-file", async () => {
    const key = Wallet.createRandom();
    const dir = await mkdtemp(join(tmpdir(), "relay-cli-"));
    try {
      const file = join(dir, "key");
      await writeFile(file, `${key.privateKey}\n`, { mode: 0o600 });
      const result = await cli.run("wallets", "import", "--project", project.name, "--private-key-file", file, "--json");
      expect(result.code).toBe(0);
      expect((JSON.parse(result.stdout) as WalletView).address).toBe(key.address);
      expectNoKey(result.stdout + result.stderr, key.privateKey);
      expect(await cli.fails("wallets", "import", "--project", project.name, "--private-key-file", join(dir, "missing"))).toMatch(/Cannot read the private key from --private-key-file .*ENOENT/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses an address that another project holds", async () => {
    const key = Wallet.createRandom();
    const other = await cli.json<{ name: string }>("projects", "create", `other-${randomUUID()}`);
    await createCliHarness(db, { kek, stdin: key.privateKey }).json("wallets", "import", "--project", other.name);
    const line = await createCliHarness(db, { kek, stdin: key.privateKey }).fails("wallets", "import", "--project", project.name);
    expect(line).toBe(`error: Wallet ${key.address} already exists in another project: an address can belong to one project only`);
  });

  it("refuses malformed or missing input without echoing it", async () => {
    const almostKey = `0x${"ab".repeat(31)}zz`;
    const bad = await createCliHarness(db, { kek, stdin: almostKey }).fails("wallets", "import", "--project", project.name);
    expect(bad).toBe("error: A private key must be 32 bytes as hex (64 hex digits, 0x optional)");
    expect(await createCliHarness(db, { kek, stdin: "\n" }).fails("wallets", "import", "--project", project.name)).toMatch(/^error: No private key in stdin/);
  });

  it("needs KEY_ENCRYPTION_KEY for create and import only, and stores nothing without it", async () => {
    const withoutKek = createCliHarness(db, { getKek: createKekLoader({}), stdin: Wallet.createRandom().privateKey });
    const before = await createWalletRepository(db).listByProject(project.id);
    for (const command of ["create", "import"]) {
      const line = await withoutKek.fails("wallets", command, "--project", project.name);
      expect(line).toMatch(/^error: KEY_ENCRYPTION_KEY \(unset\): .*set it to the same 32-byte base64 key the workers use\)$/);
    }
    const malformed = createCliHarness(db, { getKek: createKekLoader({ KEY_ENCRYPTION_KEY: "c2hvcnQ=" }) });
    const line = await malformed.fails("wallets", "create", "--project", project.name);
    expect(line).toMatch(/^error: KEY_ENCRYPTION_KEY \(set\): must be 32 random bytes in base64/);
    expect(line).not.toContain("c2hvcnQ=");

    expect(await withoutKek.json<WalletView[]>("wallets", "list", "--project", project.name)).toHaveLength(before.length);
  });

  it("reseal: seals every wallet key again under the active key, so the old key can be retired; keys it cannot open are named, not touched", async () => {
    // A database of its own: reseal walks every wallet, and the run's shared one holds other tests' keys.
    const own = await createTestDatabase({ migrate: true });
    const ownDb = createDatabase({ url: own.url, poolSize: 2 });
    try {
      const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
      const before = createCliHarness(ownDb, { kek: { activeKeyId: "k1", keys: new Map([["k1", oldKey]]) } });
      const p = await before.json<{ name: string }>("projects", "create", `reseal-${randomUUID()}`);
      const made = [await before.json<WalletView>("wallets", "create", "--project", p.name), await before.json<WalletView>("wallets", "create", "--project", p.name)];

      const rotating = createCliHarness(ownDb, { kek: { activeKeyId: "k2", keys: new Map([["k1", oldKey], ["k2", newKey]]) } });
      expect(await rotating.json("wallets", "reseal")).toEqual({ activeKeyId: "k2", resealed: 2, alreadyCurrent: 0 });
      expect(await rotating.json("wallets", "reseal")).toEqual({ activeKeyId: "k2", resealed: 0, alreadyCurrent: 2 });

      // The old key is gone from the keyring: every wallet still opens, to its own address.
      const retired = { activeKeyId: "k2", keys: new Map([["k2", newKey]]) };
      for (const wallet of made) {
        const stored = (await createWalletRepository(ownDb).findWithKey(wallet.id))!;
        expect(stored.encryptedKey).toMatch(/^v1\.k2\./);
        expect(openWalletKey(retired, stored).address).toBe(wallet.address);
      }

      // A keyring without the key they are sealed with: named, left as they are, exit 1.
      const lost = createCliHarness(ownDb, { kek: { activeKeyId: "k3", keys: new Map([["k3", randomBytes(32)]]) } });
      const line = await lost.fails("wallets", "reseal");
      expect(line).toMatch(/^error: 2 wallet key\(s\) do not open with KEY_ENCRYPTION_KEY and KEY_ENCRYPTION_KEYS_PREVIOUS \(wallets .+\): add the key they were sealed with/);
      expect((await createWalletRepository(ownDb).findWithKey(made[0]!.id))!.encryptedKey).toMatch(/^v1\.k2\./);

      // A new key under the old key's id (KEY_ENCRYPTION_KEY_ID left as it was): the keys say k2
      // and the keyring has a k2, but not the k2 they were sealed with. Not "already current":
      // that told the operator the old key could go, and every wallet key went with it.
      const slipped = createCliHarness(ownDb, { kek: { activeKeyId: "k2", keys: new Map([["k2", randomBytes(32)]]) } });
      expect(await slipped.fails("wallets", "reseal")).toMatch(/^error: 2 wallet key\(s\) do not open .*a new KEY_ENCRYPTION_KEY needs a new KEY_ENCRYPTION_KEY_ID/);
    } finally {
      await ownDb.$disconnect();
      await own.drop();
    }
  });

  it("deactivate, activate and retire change the wallet as the HTTP API does; list shows type and state", async () => {
    const p = await cli.json<{ id: string; name: string }>("projects", "create", `states-${randomUUID()}`);
    const w = await cli.json<WalletView>("wallets", "create", "--project", p.name);
    expect(w).toMatchObject({ walletType: "BROADCAST", isActive: true, retiredAt: null });

    expect(await cli.json<WalletView>("wallets", "deactivate", "--project", p.name, "--address", w.address.toLowerCase())).toMatchObject({ address: w.address, isActive: false });
    expect((await createWalletRepository(db).findByAddress(w.address))!.isActive).toBe(false);
    const table = await cli.run("wallets", "list", "--project", p.name);
    expect(table.stdout).toMatch(new RegExp(`${w.address}\\s+BROADCAST\\s+LOCAL\\s+inactive`));
    expect(await cli.json<WalletView>("wallets", "activate", "--project", p.name, "--address", w.address)).toMatchObject({ isActive: true });

    const retired = await cli.json<WalletView>("wallets", "retire", "--project", p.name, "--address", w.address);
    expect(retired).toMatchObject({ isActive: false, retiredAt: expect.any(String) });
    expect(await cli.fails("wallets", "activate", "--project", p.name, "--address", w.address)).toBe(`error: Wallet ${w.address} is retired: a retired wallet is never activated again`);
    expect((await cli.run("wallets", "list", "--project", p.name)).stdout).toMatch(new RegExp(`${w.address}\\s+BROADCAST\\s+LOCAL\\s+retired`));
    // Retiring again changes nothing.
    expect(await cli.json<WalletView>("wallets", "retire", "--project", p.name, "--address", w.address)).toEqual(retired);

    // Another project's wallet is not found through this project.
    expect(await cli.fails("wallets", "deactivate", "--project", project.name, "--address", w.address)).toBe(`error: Project ${project.name} has no wallet ${w.address}`);
    expect(await cli.fails("wallets", "retire", "--project", p.name, "--address", "0x12")).toMatch(/^error: --address "0x12" is not an EVM address/);
  });

  it("export-key: only a retired wallet's key, only with the confirmation flag, only into a new file of mode 0600", async () => {
    const p = await cli.json<{ name: string }>("projects", "create", `export-${randomUUID()}`);
    const w = await cli.json<WalletView>("wallets", "create", "--project", p.name);
    const dir = await mkdtemp(join(tmpdir(), "relay-cli-"));
    try {
      const out = join(dir, "key");
      expect(await cli.fails("wallets", "export-key", "--project", p.name, "--address", w.address, "--out", out)).toMatch(/^error: export-key writes a private key in the clear: add --i-understand-this-reveals-the-key/);
      expect(await cli.fails("wallets", "export-key", "--project", p.name, "--address", w.address, "--out", out, "--i-understand-this-reveals-the-key")).toMatch(/is not retired: retire it first/);
      await cli.json("wallets", "retire", "--project", p.name, "--address", w.address);
      const result = await cli.run("wallets", "export-key", "--project", p.name, "--address", w.address, "--out", out, "--i-understand-this-reveals-the-key");
      expect(result.code).toBe(0);
      const privateKey = (await readFile(out, "utf8")).trim();
      expect(new Wallet(privateKey).address).toBe(w.address);
      expect((await stat(out)).mode & 0o777).toBe(0o600);
      expectNoKey(result.stdout + result.stderr, privateKey);
      // Never over an existing file.
      expect(await cli.fails("wallets", "export-key", "--project", p.name, "--address", w.address, "--out", out, "--i-understand-this-reveals-the-key")).toMatch(/Cannot create --out .*EEXIST/);
      // The record and its sealed key stay.
      expect(await createWalletRepository(db).findWithKey(w.id)).toMatchObject({ address: w.address, encryptedKey: expect.stringMatching(/^v1\./) });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
