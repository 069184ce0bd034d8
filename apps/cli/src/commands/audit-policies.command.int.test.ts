import { randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDatabase, type Database } from "@relay/db";
import { createTestDatabase, type TestDatabase } from "@relay/testing";
import { createCliHarness, randomKek } from "../cli-harness";

interface EntryView {
  actorType: string;
  actorId: string | null;
  action: string;
  projectId: string | null;
  subject: string | null;
  details: Record<string, unknown>;
}

/**
 * Policy changes, a key's scopes and allowlist, and a wallet's custody backend in the audit log:
 * each change by the operator who made it, with what it is now; a change that changes nothing
 * (clearing a policy the project does not have) records nothing.
 */
describe("relay audit: policies, key limits and wallet backends", () => {
  let database: TestDatabase;
  let db: Database;
  let dir: string;
  const kek = randomKek();

  beforeAll(async () => {
    database = await createTestDatabase({ migrate: true });
    db = createDatabase({ url: database.url, poolSize: 2 });
    dir = await mkdtemp(join(tmpdir(), "relay-audit-policies-"));
  });
  afterAll(async () => {
    await db?.$disconnect();
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it("records each policy change, key restriction and wallet creation with what it is now", async () => {
    const carol = createCliHarness(db, { kek, operator: "carol" });
    const project = await carol.json<{ id: string; name: string }>("projects", "create", `audit-policy-${randomUUID()}`);
    const key = await carol.json<{ id: string }>("keys", "create", "--project", project.name, "--scopes", "send,read", "--allow-ip", "10.0.0.0/8");
    await carol.json("keys", "restrict", key.id, "--scopes", "sign");
    await carol.json("policies", "limits", "--project", project.name, "--value-per-tx", "1000");
    const address = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
    await carol.json("policies", "allow-contract", "--project", project.name, "--chain", "31337", "--address", address);
    const file = join(dir, "policy.json");
    await writeFile(file, JSON.stringify({ valuePerWalletPerDayWei: "5000" }));
    await carol.json("policies", "set", "--project", project.name, "--file", file);
    await carol.json("policies", "clear", "--project", project.name);
    await carol.json("policies", "clear", "--project", project.name);
    const wallet = await carol.json<{ id: string }>("wallets", "create", "--project", project.name);

    const entries = (await carol.json<EntryView[]>("audit", "list", "--project", project.name)).reverse();
    expect(entries.map((e) => [e.action, e.actorType, e.actorId])).toEqual([
      ["project.created", "operator", "carol"],
      ["api_key.created", "operator", "carol"],
      ["api_key.restricted", "operator", "carol"],
      ["policy.changed", "operator", "carol"],
      ["policy.changed", "operator", "carol"],
      ["policy.changed", "operator", "carol"],
      ["policy.cleared", "operator", "carol"],
      ["wallet.created", "operator", "carol"],
    ]);
    expect(entries[1]).toMatchObject({ subject: key.id, details: { scopes: ["send", "read"], allowedCidrs: ["10.0.0.0/8"] } });
    expect(entries[2]).toMatchObject({ subject: key.id, details: { scopes: ["sign"], allowedCidrs: ["10.0.0.0/8"] } });
    expect(entries[3]!.details).toEqual({ policy: { valuePerTransactionWei: "1000" } });
    expect(entries[4]!.details).toEqual({ policy: { valuePerTransactionWei: "1000", contracts: { "31337": [{ address }] } } });
    expect(entries[5]!.details).toEqual({ policy: { valuePerWalletPerDayWei: "5000" } });
    expect(entries[7]).toMatchObject({ subject: wallet.id, details: { backend: "LOCAL" } });
  });
});
