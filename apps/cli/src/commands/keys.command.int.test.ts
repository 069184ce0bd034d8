import { randomUUID } from "node:crypto";
import { parseApiKey, secretMatches } from "@relay/core";
import { createApiKeyRepository, type Database } from "@relay/db";
import { createCliHarness, openTestDatabase } from "../cli-harness";

interface KeyView {
  id: string;
  projectId: string;
  name: string;
  createdAt: string;
  revokedAt: string | null;
  scopes: string[];
  allowedCidrs: string[];
}

describe("relay keys", () => {
  let db: Database;
  let cli: ReturnType<typeof createCliHarness>;
  let project: { id: string; name: string };

  beforeAll(async () => {
    db = openTestDatabase();
    cli = createCliHarness(db);
    project = await cli.json("projects", "create", `keys-${randomUUID()}`);
  });
  afterAll(() => db.$disconnect());

  it("creates a key whose token parses and matches the stored hash", async () => {
    const created = await cli.json<KeyView & { token: string }>("keys", "create", "--project", project.name, "--name", "ci");
    expect(created).toMatchObject({ projectId: project.id, name: "ci", revokedAt: null });

    const parsed = parseApiKey(created.token);
    expect(parsed?.id).toBe(created.id);
    const stored = await createApiKeyRepository(db).findById(created.id);
    expect(stored).not.toBeNull();
    expect(secretMatches(parsed?.secret ?? "", stored?.secretHash ?? new Uint8Array())).toBe(true);
  });

  it("accepts the project id as well as its name", async () => {
    const created = await cli.json<KeyView>("keys", "create", "--project", project.id);
    expect(created).toMatchObject({ projectId: project.id, name: "default" });
  });

  it("shows the token in human output once, and lists keys without secrets or hashes", async () => {
    const { stdout } = await cli.run("keys", "create", "--project", project.name, "--name", "human");
    const token = /rk_[0-9a-f]{32}_[A-Za-z0-9_-]{43}/.exec(stdout)?.[0];
    expect(token).toBeDefined();

    const listed = await cli.json<KeyView[]>("keys", "list", "--project", project.name);
    expect(listed.map((k) => k.name)).toEqual(expect.arrayContaining(["ci", "default", "human"]));
    for (const key of listed) expect(Object.keys(key).sort()).toEqual(["allowedCidrs", "createdAt", "id", "name", "projectId", "revokedAt", "scopes"]);

    const table = await cli.run("keys", "list", "--project", project.name);
    const stored = await createApiKeyRepository(db).listByProject(project.id);
    const everything = JSON.stringify(listed) + table.stdout;
    expect(everything).not.toContain(token);
    for (const key of stored) {
      expect(everything).not.toContain(Buffer.from(key.secretHash).toString("hex"));
      expect(everything).not.toContain(Buffer.from(key.secretHash).toString("base64"));
    }
  });

  it("revokes a key, and says so when it was revoked already", async () => {
    const created = await cli.json<KeyView>("keys", "create", "--project", project.name, "--name", "to-revoke");
    const revoked = await cli.json<KeyView & { alreadyRevoked: boolean }>("keys", "revoke", created.id);
    expect(revoked).toMatchObject({ id: created.id, alreadyRevoked: false, revokedAt: expect.any(String) });

    const listed = await cli.json<KeyView[]>("keys", "list", "--project", project.id);
    expect(listed.find((k) => k.id === created.id)?.revokedAt).toBe(revoked.revokedAt);

    const again = await cli.json<KeyView & { alreadyRevoked: boolean }>("keys", "revoke", created.id);
    expect(again).toMatchObject({ alreadyRevoked: true, revokedAt: revoked.revokedAt });
  });

  it("refuses an unknown key id, a token in place of an id, and an unknown project", async () => {
    expect(await cli.fails("keys", "revoke", randomUUID())).toMatch(/^error: No API key with id /);
    const { token } = await cli.json<{ token: string }>("keys", "create", "--project", project.name);
    const line = await cli.fails("keys", "revoke", token);
    expect(line).toMatch(/not the token/);
    expect(line).not.toContain(token);
    expect(await cli.fails("keys", "list", "--project", "no-such-project")).toMatch(/^error: No project with id or name "no-such-project": run `npm run relay -- projects list`/);
  });

  it("creates a key with scopes and an IP allowlist, lists them, and changes them with keys restrict", async () => {
    const all = await cli.json<KeyView>("keys", "create", "--project", project.name, "--name", "all");
    expect([all.scopes, all.allowedCidrs]).toEqual([["send", "sign", "read", "webhooks", "wallets"], []]);
    const limited = await cli.json<KeyView>("keys", "create", "--project", project.name, "--name", "limited", "--scopes", "sign,SEND", "--allow-ip", "10.0.0.0/8, 2001:db8::/32");
    expect([limited.scopes, limited.allowedCidrs]).toEqual([["send", "sign"], ["10.0.0.0/8", "2001:db8::/32"]]);
    const stored = await createApiKeyRepository(db).findById(limited.id);
    expect([stored?.scopes, stored?.allowedCidrs]).toEqual([["send", "sign"], ["10.0.0.0/8", "2001:db8::/32"]]);

    const table = (await cli.run("keys", "list", "--project", project.name)).stdout;
    expect(table).toMatch(/SCOPES\s+ALLOWED IPS/);
    expect(table).toMatch(/send,sign\s+10\.0\.0\.0\/8,2001:db8::\/32/);

    const read = await cli.json<KeyView>("keys", "restrict", limited.id, "--scopes", "read");
    expect([read.scopes, read.allowedCidrs]).toEqual([["read"], ["10.0.0.0/8", "2001:db8::/32"]]);
    const anywhere = await cli.json<KeyView>("keys", "restrict", limited.id, "--allow-ip", "any");
    expect([anywhere.scopes, anywhere.allowedCidrs]).toEqual([["read"], []]);
    const human = await cli.run("keys", "restrict", limited.id, "--allow-ip", "127.0.0.1");
    expect(human.stdout).toBe(`API key ${limited.id} (limited) may now read from 127.0.0.1/32\n`);
  });

  it("refuses unknown scopes, bad CIDR ranges and a restrict that changes nothing, and stores nothing", async () => {
    const before = (await createApiKeyRepository(db).listByProject(project.id)).length;
    expect(await cli.fails("keys", "create", "--project", project.name, "--scopes", "send,admin")).toBe('error: "admin" is not a scope; scopes are send, sign, read, webhooks, wallets');
    expect(await cli.fails("keys", "create", "--project", project.name, "--allow-ip", "10.0.0.0/33")).toBe('error: "10.0.0.0/33" is not a CIDR range such as 10.0.0.0/8 or 2001:db8::/32');
    expect((await createApiKeyRepository(db).listByProject(project.id)).length).toBe(before);
    const key = await cli.json<KeyView>("keys", "create", "--project", project.name);
    expect(await cli.fails("keys", "restrict", key.id)).toBe("error: give --scopes, --allow-ip or both");
    expect(await cli.fails("keys", "restrict", randomUUID(), "--scopes", "read")).toMatch(/^error: No API key with id /);
  });
});
