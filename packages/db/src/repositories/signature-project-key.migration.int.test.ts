/**
 * Migration 20261126000000_signature_project_key makes a signature's key (project_id, id): the
 * records stored under the earlier key (id alone) keep working after it, and the statements work
 * before it too, as gateways of this version may run before the migration does
 * (docs/operations.md, "Deploying").
 */
import { randomBytes, randomUUID } from "node:crypto";
import { cp, mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client, escapeIdentifier } from "pg";
import { createLogger } from "@relay/core";
import { createPool } from "../client";
import { ensureDatabase, withDatabase } from "../migrate/ensure-database";
import { migrate } from "../migrate/migrate";
import { resolveMigrationsDir } from "../migrate/migrations-dir";
import { createSignatureRepository } from "./signature.repository";

const MIGRATION = "20261126000000_signature_project_key";
const logger = createLogger({ name: "migration-test", level: "silent" });
const text = (s: string) => new TextEncoder().encode(s);

let databaseUrl: string;
let before: string;
/** The migrations up to this one, included. */
let through: string;

/** The run's Postgres server (packages/db cannot use @relay/testing, which depends on it). */
function serverUrl(): string {
  const url = process.env.RELAY_TEST_DATABASE_URL;
  if (!url) throw new Error("RELAY_TEST_DATABASE_URL is not set: run through jest with the workspace jest.config.js");
  return withDatabase(url, "postgres");
}

beforeAll(async () => {
  databaseUrl = withDatabase(serverUrl(), `relay_test_${Math.floor(Date.now() / 1000).toString(36)}_${randomBytes(5).toString("hex")}`);
  await ensureDatabase(databaseUrl);
  // The migrations up to the one before this one.
  before = await mkdtemp(path.join(os.tmpdir(), "relay-migrations-"));
  await cp(resolveMigrationsDir(), before, { recursive: true });
  for (const entry of await readdir(before, { withFileTypes: true })) {
    if (entry.isDirectory() && entry.name >= MIGRATION) await rm(path.join(before, entry.name), { recursive: true });
  }
  await migrate({ databaseUrl, logger, migrationsDir: before });
  through = await mkdtemp(path.join(os.tmpdir(), "relay-migrations-"));
  await cp(resolveMigrationsDir(), through, { recursive: true });
  for (const entry of await readdir(through, { withFileTypes: true })) {
    if (entry.isDirectory() && entry.name > MIGRATION) await rm(path.join(through, entry.name), { recursive: true });
  }
  // The statements of this version also name the signature's API key, a column of a later release
  // (20261127000000_audit_log), which is migrated first as usual: a relay from before this
  // migration upgrades through the release that brought it (docs/operations.md, "Deploying").
  await withClient((client) => client.query(`ALTER TABLE signature ADD COLUMN api_key_id uuid`));
});

async function withClient<T>(use: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

afterAll(async () => {
  const client = new Client({ connectionString: serverUrl() });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${escapeIdentifier(new URL(databaseUrl).pathname.slice(1))} WITH (FORCE)`);
  await client.end();
  await rm(before, { recursive: true, force: true });
  await rm(through, { recursive: true, force: true });
});

test("records stored before the migration are read, signed and guarded by their id in their project after it", async () => {
  const pool = createPool({ url: databaseUrl, poolSize: 2 });
  try {
    const projects = [randomUUID(), randomUUID()];
    const wallets = [randomUUID(), randomUUID()];
    for (const [i, projectId] of projects.entries()) {
      await pool.query(`INSERT INTO project (id, name) VALUES ($1, $2)`, [projectId, `p-${projectId}`]);
      await pool.query(`INSERT INTO wallet (id, project_id, address, encrypted_key) VALUES ($1, $2, $3, 'sealed')`, [wallets[i], projectId, `0x${randomBytes(20).toString("hex")}`]);
    }
    const [p, q] = projects as [string, string];
    const [pWallet, qWallet] = wallets as [string, string];
    const signatures = createSignatureRepository(pool);
    const [pending, signed] = [randomUUID(), randomUUID()];
    // Stored by this version's statements against the table as it was.
    expect(await signatures.insertPending({ projectId: p, id: pending, walletId: pWallet, message: text("pending") })).toBe(true);
    expect(await signatures.insertPending({ projectId: p, id: signed, walletId: pWallet, message: text("signed") })).toBe(true);
    expect(await signatures.markSigned({ projectId: p, id: signed }, "0xsigned", { walletId: pWallet, message: text("signed") })).toBe(true);

    await migrate({ databaseUrl, logger, migrationsDir: through });

    expect(await signatures.findById(p, signed)).toMatchObject({ status: "SIGNED", signature: "0xsigned" });
    expect(await signatures.findForSigning({ projectId: p, id: pending })).toMatchObject({ status: "PENDING", walletId: pWallet });
    expect(await signatures.markSigned({ projectId: p, id: pending }, "0xpending", { walletId: pWallet, message: text("pending") })).toBe(true);
    // The id stays taken in its project, and is free in another.
    expect(await signatures.insertPending({ projectId: p, id: signed, walletId: pWallet, message: text("again") })).toBe(false);
    expect(await signatures.insertPending({ projectId: q, id: signed, walletId: qWallet, message: text("q's") })).toBe(true);
    expect(await signatures.findById(p, signed)).toMatchObject({ walletId: pWallet, signature: "0xsigned" });
    expect(await signatures.findById(q, signed)).toMatchObject({ walletId: qWallet, status: "PENDING" });
  } finally {
    await pool.end();
  }
});
