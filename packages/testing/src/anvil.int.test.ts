import { accessSync, constants } from "node:fs";
import { Wallet } from "ethers";
import { ANVIL_FUNDED_KEY, anvilBinaryPath, startAnvil, type AnvilInstance } from "./anvil";

async function rpc(rpcUrl: string, method: string, params: unknown[] = []): Promise<unknown> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: unknown; error?: unknown };
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

describe("startAnvil", () => {
  const started: AnvilInstance[] = [];
  afterAll(async () => {
    await Promise.all(started.map((node) => node.stop()));
  });

  it("resolves the platform binary without the node wrapper", () => {
    const binary = anvilBinaryPath();
    expect(binary).toMatch(/@foundry-rs[\\/]anvil-[a-z0-9]+-[a-z0-9]+[\\/]bin[\\/]anvil(\.exe)?$/);
    expect(() => accessSync(binary, constants.X_OK)).not.toThrow();
  });

  it("runs two chains side by side on free ports, and stop() ends each", async () => {
    const [a, b] = await Promise.all([startAnvil({ chainId: 71001 }), startAnvil({ chainId: 71002 })]);
    started.push(a, b);

    expect(a.port).not.toBe(b.port);
    expect(a.rpcUrl).toBe(`http://127.0.0.1:${a.port}`);
    expect(await rpc(a.rpcUrl, "eth_chainId")).toBe("0x" + (71001).toString(16));
    expect(await rpc(b.rpcUrl, "eth_chainId")).toBe("0x" + (71002).toString(16));
    expect(a.chainId).toBe(71001);
    expect(b.chainId).toBe(71002);

    // The well-known dev key is funded on every node.
    const funded = new Wallet(ANVIL_FUNDED_KEY).address;
    expect(funded).toBe("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
    expect(BigInt((await rpc(a.rpcUrl, "eth_getBalance", [funded, "latest"])) as string)).toBeGreaterThan(0n);

    await a.stop();
    expect(a.process.exitCode !== null || a.process.signalCode !== null).toBe(true);
    await expect(rpc(a.rpcUrl, "eth_chainId")).rejects.toThrow();
    // The other chain is unaffected, and a second stop() is harmless.
    expect(await rpc(b.rpcUrl, "eth_chainId")).toBe("0x" + (71002).toString(16));
    await a.stop();

    await b.stop();
    expect(b.process.exitCode !== null || b.process.signalCode !== null).toBe(true);
    await expect(rpc(b.rpcUrl, "eth_chainId")).rejects.toThrow();
  });

  it("passes accounts and noMining through to anvil", async () => {
    const node = await startAnvil({ accounts: 2, noMining: true });
    started.push(node);
    expect(node.chainId).toBe(31337);
    expect(await rpc(node.rpcUrl, "eth_accounts")).toHaveLength(2);

    const [from, to] = (await rpc(node.rpcUrl, "eth_accounts")) as string[];
    await rpc(node.rpcUrl, "eth_sendTransaction", [{ from, to, value: "0x1" }]);
    expect(await rpc(node.rpcUrl, "eth_blockNumber")).toBe("0x0"); // nothing mined on its own
    await node.stop();
  });

  it("reports anvil's own complaint when it cannot start", async () => {
    const busy = await startAnvil();
    started.push(busy);
    await expect(startAnvil({ port: busy.port })).rejects.toThrow(/anvil .*ended/);
    await busy.stop();
  });
});
