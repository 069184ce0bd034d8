import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Wallet } from "ethers";
import { createDatabase, type Database } from "@relay/db";
import { createTestDatabase, type TestDatabase } from "@relay/testing";
import { createCliHarness, randomKek } from "../cli-harness";

interface EntryView {
  id: string;
  at: string;
  actorType: string;
  actorId: string | null;
  action: string;
  projectId: string | null;
  walletAddress: string | null;
  subject: string | null;
  details: Record<string, unknown>;
}

/**
 * Every CLI command that changes a project, an API key or a wallet leaves one entry naming the
 * operator; `audit list` reads them back with its filters. A database of its own: `wallets reseal`
 * walks every wallet, and the filters are checked against every entry there is.
 */
describe("relay audit", () => {
  let database: TestDatabase;
  let db: Database;
  const kek = randomKek();
  let alice: ReturnType<typeof createCliHarness>;
  let bob: ReturnType<typeof createCliHarness>;
  let project: { id: string; name: string };
  let other: { id: string; name: string };
  let key: { id: string; token: string };
  let created: { id: string; address: string };
  let imported: { id: string; address: string; privateKey: string };
  let exportedKey: string;

  beforeAll(async () => {
    database = await createTestDatabase({ migrate: true });
    db = createDatabase({ url: database.url, poolSize: 2 });
    alice = createCliHarness(db, { kek, operator: "alice" });
    bob = createCliHarness(db, { kek, operator: "bob" });

    // alice: a project, a key made and revoked (twice: the second changes nothing), two wallets.
    project = await alice.json("projects", "create", `audit-${randomUUID()}`);
    key = await alice.json("keys", "create", "--project", project.name, "--name", "ci");
    await alice.json("keys", "revoke", key.id);
    await alice.json("keys", "revoke", key.id);
    created = await alice.json("wallets", "create", "--project", project.name);
    const privateKey = Wallet.createRandom().privateKey;
    imported = { ...(await createCliHarness(db, { kek, operator: "alice", stdin: privateKey }).json<{ id: string; address: string }>("wallets", "import", "--project", project.name)), privateKey };

    // bob: the wallet's life after that, and another project.
    await bob.json("wallets", "deactivate", "--project", project.name, "--address", created.address);
    await bob.json("wallets", "activate", "--project", project.name, "--address", created.address);
    await bob.json("wallets", "retire", "--project", project.name, "--address", created.address);
    await bob.json("wallets", "retire", "--project", project.name, "--address", created.address);
    const dir = await mkdtemp(join(tmpdir(), "relay-audit-"));
    try {
      await bob.json("wallets", "export-key", "--project", project.name, "--address", created.address, "--out", join(dir, "key"), "--i-understand-this-reveals-the-key");
      exportedKey = (await readFile(join(dir, "key"), "utf8")).trim();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    await bob.json("wallets", "reseal");
    other = await bob.json("projects", "create", `audit-other-${randomUUID()}`);
  });
  afterAll(async () => {
    await db?.$disconnect();
    await database?.drop();
  });

  const list = (...args: string[]) => alice.json<EntryView[]>("audit", "list", ...args);
  const actions = (entries: EntryView[]) => entries.map((e) => e.action);

  it("records each operator action once, newest first, by the operator who ran it", async () => {
    const entries = await list();
    expect(entries.map((e) => [e.action, e.actorType, e.actorId, e.projectId, e.walletAddress, e.subject])).toEqual([
      ["project.created", "operator", "bob", other.id, null, other.id],
      ["wallet.resealed", "operator", "bob", null, null, null],
      ["wallet.key_exported", "operator", "bob", project.id, created.address, created.id],
      ["wallet.retired", "operator", "bob", project.id, created.address, created.id],
      ["wallet.activated", "operator", "bob", project.id, created.address, created.id],
      ["wallet.deactivated", "operator", "bob", project.id, created.address, created.id],
      ["wallet.imported", "operator", "alice", project.id, imported.address, imported.id],
      ["wallet.created", "operator", "alice", project.id, created.address, created.id],
      ["api_key.revoked", "operator", "alice", project.id, null, key.id],
      ["api_key.created", "operator", "alice", project.id, null, key.id],
      ["project.created", "operator", "alice", project.id, null, project.id],
    ]);
    expect(entries[1]!.details).toEqual({ activeKeyId: kek.activeKeyId, resealed: 0, alreadyCurrent: 2, unopened: 0 });
  });

  it("never holds a token or a private key", async () => {
    const text = JSON.stringify(await list()).toLowerCase();
    expect(text).not.toContain(key.token.toLowerCase());
    expect(text).not.toContain(imported.privateKey.slice(2).toLowerCase());
    expect(text).not.toContain(exportedKey.slice(2).toLowerCase());
  });

  it("filters by project, actor, action (exact, prefix, repeated, comma list) and wallet", async () => {
    expect(actions(await list("--project", other.name))).toEqual(["project.created"]);
    expect((await list("--project", project.id)).every((e) => e.projectId === project.id)).toBe(true);
    expect(actions(await list("--actor", "alice", "--project", project.name))).toEqual(["wallet.imported", "wallet.created", "api_key.revoked", "api_key.created", "project.created"]);
    expect(actions(await list("--action", "api_key."))).toEqual(["api_key.revoked", "api_key.created"]);
    expect(actions(await list("--action", "wallet.retired", "--action", "wallet.created"))).toEqual(["wallet.retired", "wallet.created"]);
    expect(actions(await list("--action", "wallet.activated,project.created", "--actor", "bob"))).toEqual(["project.created", "wallet.activated"]);
    expect(actions(await list("--wallet", imported.address.toLowerCase()))).toEqual(["wallet.imported"]);
    expect(await list("--actor", "nobody")).toEqual([]);
  });

  it("filters by time, ISO or relative, and limits the count", async () => {
    const all = await list();
    const oldest = all[all.length - 1]!;
    expect(await list("--since", "1h")).toHaveLength(all.length);
    expect(await list("--until", "1h")).toEqual([]);
    expect(await list("--since", new Date(Date.now() + 60_000).toISOString())).toEqual([]);
    expect((await list("--until", new Date(new Date(oldest.at).getTime() + 1).toISOString())).map((e) => e.id)).toContain(oldest.id);
    expect((await list("--limit", "2")).map((e) => e.id)).toEqual(all.slice(0, 2).map((e) => e.id));
  });

  it("prints a table without --json", async () => {
    const result = await alice.run("audit", "list", "--project", other.name);
    expect(result.code).toBe(0);
    const [header, row] = result.stdout.trim().split("\n");
    expect(header).toMatch(/^ID\s+AT\s+ACTOR\s+ACTION\s+PROJECT\s+WALLET\s+SUBJECT$/);
    expect(row).toMatch(new RegExp(`operator:bob\\s+project\\.created\\s+${other.id}`));
    expect((await alice.run("audit", "list", "--actor", "nobody")).stdout).toBe("No audit entries match.\n");
  });

  it("refuses filters it cannot apply, saying what it takes", async () => {
    expect(await alice.fails("audit", "list", "--action", "wallet.stolen")).toMatch(/unknown action "wallet\.stolen": one of signature\.message, .*or a prefix such as .*wallet\./);
    expect(await alice.fails("audit", "list", "--wallet", "0x12")).toMatch(/--wallet "0x12" is not an EVM address/);
    expect(await alice.fails("audit", "list", "--since", "yesterday")).toMatch(/--since must be an ISO time .* or a span back from now/);
    expect(await alice.fails("audit", "list", "--limit", "0")).toMatch(/--limit must be a whole number from 1 to 10000/);
    expect(await alice.fails("audit", "list", "--project", "no-such-project")).toMatch(/no-such-project/);
  });
});
