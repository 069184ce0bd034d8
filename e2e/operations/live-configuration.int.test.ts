import { spawn } from "node:child_process";
import { randomInt } from "node:crypto";
import { resolve } from "node:path";
import { createProjectFixture, fund, setOrderCall, startRecorderChain, testDatabaseUrl, waitForStatus, type ProjectFixture, type RecorderChain } from "@relay/testing";
import { sendTransaction, startHarness, type Harness } from "../support/harness";

const ROOT = resolve(__dirname, "../..");

/** The operator CLI as `pnpm relay` runs it: its own process, configured by environment only. */
function relay(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ["--import", "tsx", "apps/cli/src/main.ts", ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? "", ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}

/**
 * Issue "Send transaction": the CLI adds chains and wallets to a running system, no restart. The
 * gateway and tx-worker run throughout; the operator's commands are separate processes on the same
 * database, and the very next request uses what they added (a "no" is never cached).
 */
describe("chains and wallets added with the CLI while the system runs", () => {
  let h: Harness;
  let chain: RecorderChain;
  let project: ProjectFixture;
  let env: Record<string, string>;

  const send = () => sendTransaction(h.baseUrl, project, { chainId: chain.anvil.chainId, contractAddress: chain.recorder.address, ...setOrderCall(7, chain.recorder.address, [1]) });

  beforeAll(async () => {
    // A chain id of this test's own: chains are global in the run's shared database.
    chain = await startRecorderChain({ chainId: 700_000_000 + randomInt(100_000_000) });
    h = await startHarness("live-config");
    project = await createProjectFixture(h.db, h.kek, { wallets: 0 });
    const kek = h.kek.keys.get(h.kek.activeKeyId)!;
    env = { DATABASE_URL: testDatabaseUrl(), KEY_ENCRYPTION_KEY: kek.toString("base64"), KEY_ENCRYPTION_KEY_ID: h.kek.activeKeyId };
    await h.startTxWorker();
  });
  afterAll(async () => {
    await h?.close();
    await chain?.stop();
  });

  it("accepts a transaction on a chain and from a wallet added after start, and confirms it", async () => {
    const before = await send();
    expect(before.status).toBe(400);
    expect(before.body.message).toMatch(/chainId \d+ is not configured/);

    const added = await relay(["chains", "add", "--chain-id", String(chain.anvil.chainId), "--rpc-url", chain.anvil.rpcUrl, "--name", "live", "--confirmations", "1", "--json"], env);
    expect(added).toMatchObject({ code: 0, stderr: "" });
    const noWallet = await send();
    expect(noWallet.status).toBe(400);
    expect(noWallet.body.message).toMatch(/has no active wallet to send from/);

    const created = await relay(["wallets", "create", "--project", project.projectId, "--json"], env);
    expect(created).toMatchObject({ code: 0, stderr: "" });
    const wallet = (JSON.parse(created.stdout) as { address: string }).address;
    await fund(chain.anvil.rpcUrl, [wallet]);

    const accepted = await send();
    expect(accepted.status).toBe(200);
    const tx = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, accepted.body.transactionId as string);
    expect(tx).toMatchObject({ status: "CONFIRMED", from: wallet });
  });
});
