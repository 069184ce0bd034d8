import { randomInt } from "node:crypto";
import type { Database } from "@relay/db";
import { startAnvil, type AnvilInstance } from "@relay/testing";
import { createCliHarness, openTestDatabase } from "../cli-harness";

interface ChainView {
  chainId: string;
  name: string;
  rpcUrls: string[];
  confirmations: number;
  lowBalanceThresholdWei: string;
  createdAt: string;
  created?: boolean;
  verified?: boolean;
}

// Chain ids are global in the run's shared database: take ones no other test would pick.
const freshChainId = () => 900_000_000 + randomInt(1_000_000_000);

describe("relay chains", () => {
  let db: Database;
  let cli: ReturnType<typeof createCliHarness>;
  let anvil: AnvilInstance;
  let chainId: number;

  beforeAll(async () => {
    chainId = freshChainId();
    anvil = await startAnvil({ chainId });
    db = openTestDatabase();
    cli = createCliHarness(db);
  });
  afterAll(async () => {
    await anvil?.stop();
    await db?.$disconnect();
  });

  it("adds a chain after checking that its RPC serves that chain id, and lists it", async () => {
    const added = await cli.json<ChainView>(
      "chains", "add", "--chain-id", String(chainId), "--rpc-url", anvil.rpcUrl, "--name", "local",
      "--confirmations", "3", "--low-balance-threshold", "1000000000000000000000",
    );
    expect(added).toMatchObject({
      chainId: String(chainId),
      name: "local",
      rpcUrls: [anvil.rpcUrl],
      confirmations: 3,
      lowBalanceThresholdWei: "1000000000000000000000",
      created: true,
      verified: true,
    });
    const listed = await cli.json<ChainView[]>("chains", "list");
    const { created: _created, verified: _verified, ...stored } = added as ChainView & { created: boolean; verified: boolean };
    expect(listed.find((c) => c.chainId === String(chainId))).toEqual(stored);
  });

  it("updates an existing chain, keeping the settings that were not given", async () => {
    const id = freshChainId();
    await cli.json("chains", "add", "--chain-id", String(id), "--rpc-url", "http://127.0.0.1:1", "--no-verify", "--confirmations", "5", "--name", "x",
      "--max-fee-cap", "100000000000", "--stuck-after", "30");
    const updated = await cli.json<ChainView>("chains", "add", "--chain-id", String(id), "--rpc-url", "http://127.0.0.1:2", "--rpc-url", "http://127.0.0.1:3", "--no-verify",
      "--block-time-ms", "500");
    expect(updated).toMatchObject({
      name: "x", confirmations: 5, rpcUrls: ["http://127.0.0.1:2", "http://127.0.0.1:3"], created: false, verified: false,
      maxFeePerGasCapWei: "100000000000", maxPriorityFeePerGasCapWei: null, stuckAfterSeconds: 30, blockTimeMs: 500,
    });
  });

  it("says when a chain has no fee cap, and not once it has one", async () => {
    const id = freshChainId();
    const uncapped = await cli.run("chains", "add", "--chain-id", String(id), "--rpc-url", "http://127.0.0.1:1", "--no-verify");
    expect(uncapped.stdout).toMatch(/No fee cap: fees follow what the RPC reports, however high; set --max-fee-cap in production/);
    const capped = await cli.run("chains", "add", "--chain-id", String(id), "--rpc-url", "http://127.0.0.1:1", "--no-verify", "--max-fee-cap", "100000000000");
    expect([capped.code, capped.stdout]).toEqual([0, expect.not.stringMatching(/No fee cap/)]);
  });

  it("refuses an RPC that serves another chain, and stores nothing", async () => {
    const wrong = freshChainId();
    const line = await cli.fails("chains", "add", "--chain-id", String(wrong), "--rpc-url", anvil.rpcUrl);
    expect(line).toBe(`error: RPC ${anvil.rpcUrl} serves chain ${chainId}, not ${wrong}: fix --chain-id or --rpc-url`);
    const listed = await cli.json<ChainView[]>("chains", "list");
    expect(listed.map((c) => c.chainId)).not.toContain(String(wrong));
  });

  it("refuses an RPC that does not answer, unless told not to verify", async () => {
    const id = freshChainId();
    const line = await cli.fails("chains", "add", "--chain-id", String(id), "--rpc-url", "http://127.0.0.1:1/secret-api-key");
    expect(line).toMatch(/^error: RPC http:\/\/127\.0\.0\.1:1\/… did not answer eth_chainId .*--no-verify/);
    expect(line).not.toContain("secret-api-key");
  });

  it("rejects bad option values with exit code 1", async () => {
    for (const args of [
      ["--chain-id", "0", "--rpc-url", anvil.rpcUrl],
      ["--chain-id", "abc", "--rpc-url", anvil.rpcUrl],
      ["--chain-id", "1", "--rpc-url", "ws://127.0.0.1:8546"],
      ["--chain-id", "1", "--rpc-url", "not a url"],
      ["--chain-id", "1", "--rpc-url", anvil.rpcUrl, "--confirmations", "-1"],
      ["--chain-id", "1"],
    ]) {
      const result = await cli.run("chains", "add", ...args, "--no-verify");
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 1, stdout: "" });
      expect(result.stderr).toMatch(/^error: /);
    }
  });
});
