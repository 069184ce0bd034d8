/**
 * The CLI in a clone after `npm start`: with KEY_ENCRYPTION_KEY (WEBHOOK_SECRET_KEY) unset it uses
 * the quick start's .dev/kek (.dev/webhook-key) and says so; a variable that is set wins; under
 * NODE_ENV=production the files are never read. The real binary, run in a directory laid out as
 * the quick start leaves a clone.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadCliConfig, loadCliWebhookKeyring } from "@relay/config";
import { openWalletKey } from "@relay/custody";
import { createDatabase, createEventCallbackRepository, createPool, createWalletRepository, type Database } from "@relay/db";
import { createProjectFixture, createTestDatabase, testKek } from "@relay/testing";
import { sealWebhookSecret } from "@relay/webhooks";
import { openTestDatabase, testDatabaseUrl } from "./cli-harness";
import { createRelayRunner } from "./cli-process";

const runRelay = createRelayRunner({ PATH: process.env.PATH ?? "" });
const newKey = () => randomBytes(32).toString("base64");
/** The keyring the workers build from this KEY_ENCRYPTION_KEY. */
const kekOf = (key: string) => loadCliConfig({ needsKek: true }, { KEY_ENCRYPTION_KEY: key }).kek!;

describe("relay in a clone after npm start (the quick start's development keys)", () => {
  let clone: string;
  const devKek = newKey();
  const devWebhookKey = newKey();
  let db: Database;

  beforeAll(() => {
    clone = mkdtempSync(join(tmpdir(), "relay-cli-clone-"));
    mkdirSync(join(clone, ".dev"));
    // As scripts/quickstart/dev-kek.ts writes them.
    writeFileSync(join(clone, ".dev", "kek"), `${devKek}\n`, { mode: 0o600 });
    writeFileSync(join(clone, ".dev", "webhook-key"), `${devWebhookKey}\n`, { mode: 0o600 });
    db = openTestDatabase();
  });
  afterAll(async () => {
    await db.$disconnect();
    rmSync(clone, { recursive: true, force: true });
  });

  /** A new project, and whether `key` opens the wallet `wallets create` then made for it. */
  const createWallet = async (env: Record<string, string>) => {
    const project = `dev-keys-${randomUUID()}`;
    expect(await runRelay(["projects", "create", project], env, { cwd: clone })).toMatchObject({ code: 0 });
    const result = await runRelay(["wallets", "create", "--project", project, "--json"], env, { cwd: clone });
    const wallet = result.code === 0 ? (JSON.parse(result.stdout) as { id: string }) : undefined;
    const record = wallet && (await createWalletRepository(db).findWithKey(wallet.id));
    const opensWith = (key: string) => {
      try {
        openWalletKey(kekOf(key), record!);
        return true;
      } catch {
        return false;
      }
    };
    return { result, opensWith };
  };

  it("seals a new wallet with .dev/kek when KEY_ENCRYPTION_KEY is unset, saying so in one line that names the file", async () => {
    const { result, opensWith } = await createWallet({ DATABASE_URL: testDatabaseUrl() });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(`note: KEY_ENCRYPTION_KEY is unset: using the quick start's development key in ${join(clone, ".dev", "kek")}\n`);
    expect(opensWith(devKek)).toBe(true);
    expect(result.stdout + result.stderr).not.toContain(devKek);
  });

  it("uses KEY_ENCRYPTION_KEY when it is set, and does not mention the file", async () => {
    const own = newKey();
    const { result, opensWith } = await createWallet({ DATABASE_URL: testDatabaseUrl(), KEY_ENCRYPTION_KEY: own });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
    expect({ own: opensWith(own), dev: opensWith(devKek) }).toEqual({ own: true, dev: false });
  });

  it("never reads the files under NODE_ENV=production: the variable is required, as anywhere", async () => {
    const result = await runRelay(["wallets", "create", "--project", "whatever"], { DATABASE_URL: testDatabaseUrl(), NODE_ENV: "production" }, { cwd: clone });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: KEY_ENCRYPTION_KEY \(unset\): is required \(wallets create\/import\/reseal\/export-key encrypt and open keys with KEY_ENCRYPTION_KEY: [^\n]*\)\n$/);
    expect(result.stderr).not.toContain(".dev");
  });

  it("opens registrations' secrets with .dev/webhook-key in `webhooks reseal` when WEBHOOK_SECRET_KEY is unset, saying so", async () => {
    // A database of its own: reseal walks every registration. One registration, sealed as the
    // quick start's gateway seals it: with the development webhook key.
    const own = await createTestDatabase({ migrate: true });
    const pool = createPool({ url: own.url, poolSize: 2 });
    const ownDb = createDatabase({ pool });
    try {
      const project = await createProjectFixture(ownDb, testKek(), { wallets: 0 });
      const keyring = loadCliWebhookKeyring({ WEBHOOK_SECRET_KEY: devWebhookKey });
      await createEventCallbackRepository({ sql: pool, db: ownDb }).create({
        projectId: project.projectId,
        eventType: "TransactionStatusChange",
        callbackUrl: `https://example.com/${randomUUID()}`,
        sealSecret: (id) => sealWebhookSecret(keyring, id, `whsec_${id}`),
      });

      const fromFile = await runRelay(["webhooks", "reseal", "--json"], { DATABASE_URL: own.url }, { cwd: clone });
      expect({ code: fromFile.code, stderr: fromFile.stderr }).toEqual({
        code: 0,
        stderr: `note: WEBHOOK_SECRET_KEY is unset: using the quick start's development key in ${join(clone, ".dev", "webhook-key")}\n`,
      });
      expect(JSON.parse(fromFile.stdout)).toMatchObject({ resealed: 0, alreadyCurrent: 1 });
      expect(fromFile.stdout + fromFile.stderr).not.toContain(devWebhookKey);

      // A key that is set wins: another one here, which does not open the registration.
      const fromEnv = await runRelay(["webhooks", "reseal"], { DATABASE_URL: own.url, WEBHOOK_SECRET_KEY: newKey() }, { cwd: clone });
      expect(fromEnv.code).toBe(1);
      expect(fromEnv.stderr).toMatch(/^error: 1 registration secret\(s\) do not open with WEBHOOK_SECRET_KEY/);
    } finally {
      await ownDb.$disconnect();
      if (!pool.ended) await pool.end();
      await own.drop();
    }
  });
});
