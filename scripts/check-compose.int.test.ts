import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { TARGETS } from "./build/targets";

const root = path.resolve(__dirname, "..");
const script = path.join(root, "scripts", "check-compose.sh");
const composeFile = path.join(root, "docker-compose.yml");

function checkCompose(...args: string[]) {
  const run = spawnSync("bash", [script, ...args], { encoding: "utf8", timeout: 240_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe("scripts/check-compose.sh", () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "check-compose-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // The first run may install docker-compose from apt.
  it("accepts the repository's docker-compose.yml", () => {
    const run = checkCompose();
    expect(run.output).toContain("is valid");
    expect(run.status).toBe(0);
  }, 300_000);

  it("rejects a copy with a port of the wrong type, naming the field", () => {
    const broken = readFileSync(composeFile, "utf8").replace(/ports:\n(\s+)- .*\n/, 'ports: "abc"\n');
    expect(broken).toContain('ports: "abc"');
    const file = path.join(dir, "docker-compose.yml");
    writeFileSync(file, broken);

    const run = checkCompose(file);
    expect(run.status).not.toBe(0);
    expect(run.output).toContain("INVALID");
    expect(run.output).toMatch(/ports contains an invalid type/);
  });

  // The image holds the bundles of `pnpm build` (Dockerfile); a service must run one of them.
  it("runs each app service from a file that pnpm build produces", () => {
    const commands = [...readFileSync(composeFile, "utf8").matchAll(/command: \["node", (.*)\]/g)].map((m) => JSON.parse(`[${m[1]}]`) as string[]);
    expect(commands).toHaveLength(5);
    const built = TARGETS.map((t) => t.outfile);
    for (const args of commands) expect(built).toContain(args.at(-1));
  });

  it("fails on a path that does not exist", () => {
    const run = checkCompose(path.join(dir, "missing.yml"));
    expect(run.status).not.toBe(0);
    expect(run.output).toContain("no such file");
  });

  // The workers must not start without their keys: compose itself refuses, naming the variable.
  it.each(["KEY_ENCRYPTION_KEY", "WEBHOOK_SECRET_KEY"])("makes docker-compose refuse the real file without %s", (name) => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      KEY_ENCRYPTION_KEY: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
      WEBHOOK_SECRET_KEY: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
    };
    delete env[name];
    const run = spawnSync("docker-compose", ["-f", composeFile, "config", "-q"], { encoding: "utf8", env });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain(`set ${name}`);
  });
});
