import { randomBytes, randomUUID } from "node:crypto";
import { Wallet } from "ethers";
import { testDatabaseUrl } from "./cli-harness";
import { createRelayRunner } from "./cli-process";

/** The real binary, as `npm run relay` runs it, with only PATH and the environment given here. */
const runRelay = createRelayRunner({ PATH: process.env.PATH ?? "" });
const relay = (args: string[], env: Record<string, string>, stdin = "") => runRelay(args, env, { stdin });

describe("relay binary (main.ts)", () => {
  const env = () => ({ DATABASE_URL: testDatabaseUrl() });

  it("runs a command against DATABASE_URL, prints JSON and exits promptly", async () => {
    const name = `bin-${randomUUID()}`;
    const created = await relay(["projects", "create", name, "--json"], env());
    expect(created).toMatchObject({ code: 0, stderr: "" });

    const listed = await relay(["projects", "list", "--json"], env());
    expect(listed).toMatchObject({ code: 0, stderr: "" });
    expect((JSON.parse(listed.stdout) as { name: string }[]).map((p) => p.name)).toContain(name);
    // Start-up through tsx dominates; a lingering pool or socket would add seconds.
    expect(listed.ms).toBeLessThan(10_000);
  });

  it("reads an imported key from piped stdin and never prints it", async () => {
    const project = `bin-import-${randomUUID()}`;
    await relay(["projects", "create", project], env());
    const key = Wallet.createRandom();
    const kekEnv = { ...env(), KEY_ENCRYPTION_KEY: randomBytes(32).toString("base64") };

    const result = await relay(["wallets", "import", "--project", project, "--json"], kekEnv, `${key.privateKey}\n`);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(result.stdout)).toMatchObject({ address: key.address });
    expect(result.stdout.toLowerCase()).not.toContain(key.privateKey.slice(2));
  });

  it("names commands in its help as they are typed in a clone", async () => {
    const help = await relay(["wallets", "create", "--help"], env());
    expect(help).toMatchObject({ code: 0, stderr: "" });
    expect(help.stdout).toMatch(/^Usage: npm run relay -- wallets create \[options\]\n/);
  });

  it("fails with one line on stderr and exit code 1", async () => {
    const noKek = await relay(["wallets", "create", "--project", "whatever"], env());
    expect(noKek.code).toBe(1);
    expect(noKek.stdout).toBe("");
    expect(noKek.stderr).toMatch(/^error: KEY_ENCRYPTION_KEY \(unset\): [^\n]*`npm start` creates a development key in \S+\/\.dev\/kek[^\n]*\n$/);

    const badUrl = await relay(["projects", "list"], { DATABASE_URL: "mysql://nope" });
    expect(badUrl.code).toBe(1);
    expect(badUrl.stderr).toMatch(/^error: Invalid configuration: DATABASE_URL \(set\): must be a postgresql:\/\/ URL\n$/);

    const unreachable = await relay(["projects", "list"], { DATABASE_URL: "postgresql://postgres:hunter2@127.0.0.1:1/relay" });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toBe("error: Cannot connect to Postgres: check that it is running and that DATABASE_URL points at it\n");
  });
});
