import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPolicyRepository, type Database } from "@relay/db";
import { createCliHarness, openTestDatabase } from "../cli-harness";

interface PolicyView {
  projectId: string;
  policy: Record<string, unknown> | null;
  updatedAt: string | null;
}

const CONTRACT = "0x00000000000000000000000000000000000000c1";

describe("relay policies", () => {
  let db: Database;
  let cli: ReturnType<typeof createCliHarness>;
  let project: { id: string; name: string };
  const dir = mkdtempSync(join(tmpdir(), "relay-policies-"));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const stored = async () => (await createPolicyRepository(db).get(project.id))?.policy ?? null;

  beforeAll(async () => {
    db = openTestDatabase();
    cli = createCliHarness(db);
    project = await cli.json("projects", "create", `policies-${randomUUID()}`);
  });
  afterAll(() => db.$disconnect());

  it("shows no policy, then sets a whole document from a file and shows it", async () => {
    expect(await cli.json<PolicyView>("policies", "show", "--project", project.name)).toEqual({ projectId: project.id, policy: null, updatedAt: null });
    expect((await cli.run("policies", "show", "--project", project.name)).stdout).toMatch(/has no policy: every send is stored as it comes/);
    const document = { contracts: { "1": [{ address: CONTRACT, functions: ["transfer(address,uint256)", "0x095ea7b3"] }] }, valuePerTransactionWei: "1000" };
    const set = await cli.json<PolicyView>("policies", "set", "--project", project.name, "--file", file("p.json", JSON.stringify(document)));
    expect(set.policy).toEqual(document);
    expect(await stored()).toEqual(document);
    const shown = await cli.json<PolicyView>("policies", "show", "--project", project.id);
    expect([shown.policy, typeof shown.updatedAt]).toEqual([document, "string"]);
  });

  it("refuses a document that does not validate, naming the field, and keeps the policy it had", async () => {
    const before = await stored();
    expect(await cli.fails("policies", "set", "--project", project.name, "--file", file("bad.json", JSON.stringify({ contracts: { "1": [{ address: "0x12" }] } })))).toBe(
      "error: policy contracts.1.0.address: a 0x-prefixed 20-byte hex address",
    );
    expect(await cli.fails("policies", "set", "--project", project.name, "--file", file("typo.json", JSON.stringify({ valuePerTxWei: "1" })))).toBe('error: policy the policy document: Unrecognized key: "valuePerTxWei"');
    expect(await cli.fails("policies", "set", "--project", project.name, "--file", file("broken.json", "{"))).toMatch(/^error: --file .*broken\.json is not JSON: /);
    expect(await cli.fails("policies", "set", "--project", project.name, "--file", join(dir, "missing.json"))).toMatch(/^error: cannot read --file .*missing\.json: ENOENT$/);
    expect(await stored()).toEqual(before);
  });

  it("allow-contract adds a contract, or functions to one, and without --function allows any function", async () => {
    const other = "0x00000000000000000000000000000000000000c2";
    await cli.json("policies", "allow-contract", "--project", project.name, "--chain", "5", "--address", other, "--function", "setX(uint256)");
    await cli.json("policies", "allow-contract", "--project", project.name, "--chain", "5", "--address", other, "--function", "0x12345678");
    await cli.json("policies", "allow-contract", "--project", project.name, "--chain", "1", "--address", CONTRACT);
    const policy = (await stored()) as { contracts: Record<string, unknown> };
    expect(policy.contracts).toEqual({ "1": [{ address: CONTRACT }], "5": [{ address: other, functions: ["setX(uint256)", "0x12345678"] }] });
    expect(await cli.fails("policies", "allow-contract", "--project", project.name, "--chain", "5", "--address", other, "--function", "not a function")).toMatch(
      /^error: policy contracts\.5\.0\.functions\.2: "not a function" is neither a 4-byte selector/,
    );
  });

  it("limits sets and removes each limit and keeps the rest of the document", async () => {
    const set = await cli.json<PolicyView>("policies", "limits", "--project", project.name, "--value-per-day", "500", "--gas-per-day", "21000000");
    expect(set.policy).toMatchObject({ valuePerTransactionWei: "1000", valuePerWalletPerDayWei: "500", gasPerWalletPerDayWei: "21000000" });
    const removed = await cli.json<PolicyView>("policies", "limits", "--project", project.name, "--value-per-tx", "none");
    expect(removed.policy).not.toHaveProperty("valuePerTransactionWei");
    expect(removed.policy).toHaveProperty("contracts");
    expect(await cli.fails("policies", "limits", "--project", project.name, "--gas-per-day", "-5")).toMatch(/--gas-per-day must be a whole number of wei, or "none"/);
    expect(await cli.fails("policies", "limits", "--project", project.name)).toBe("error: give at least one of --value-per-tx, --value-per-day, --gas-per-day");
  });

  it("clear removes the policy, and says when there was none", async () => {
    expect(await cli.json("policies", "clear", "--project", project.name)).toEqual({ projectId: project.id, removed: true });
    expect(await stored()).toBeNull();
    expect((await cli.run("policies", "clear", "--project", project.name)).stdout).toBe(`Project ${project.name} had no policy\n`);
  });
});
