import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Interface, Network, Wallet, isError } from "ethers";
import { ANVIL_FUNDED_KEY, deployRecorder, startAnvil, type AnvilInstance, type DeployedRecorder } from "@relay/testing";
import { classifyRpcError } from "./rpc-errors";
import { NativeJsonRpcProvider } from "./native-json-provider";

const options = { staticNetwork: true, cacheTimeout: -1, batchMaxCount: 100, batchStallTime: 2 } as const;

describe("NativeJsonRpcProvider", () => {
  let anvil: AnvilInstance;
  let recorder: DeployedRecorder;
  const funded = new Wallet(ANVIL_FUNDED_KEY).address;

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 31_413 });
    recorder = await deployRecorder(anvil.rpcUrl);
    recorder.provider.destroy();
  });
  afterAll(() => anvil.stop());

  /** A JSON-RPC endpoint on loopback: `answer` gets each request's body and its response. */
  const endpoint = async (answer: (body: string, res: ServerResponse) => void): Promise<{ url: string; server: Server }> => {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => answer(Buffer.concat(chunks).toString("utf8"), res));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
  };
  /** Answers with what anvil answers to the same body. */
  const forwardToAnvil = (body: string, res: ServerResponse) =>
    void fetch(anvil.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body }).then(async (a) =>
      res.writeHead(200, { "content-type": "application/json" }).end(await a.text()),
    );

  const provider = (url = anvil.rpcUrl, timeoutMs = 5000) => new NativeJsonRpcProvider(url, timeoutMs, Network.from(anvil.chainId), options);

  test("answers concurrent calls, batched, each with its own result", async () => {
    const p = provider();
    try {
      const [block, balance, count, chainId] = await Promise.all([
        p.getBlockNumber(),
        p.getBalance(funded),
        p.getTransactionCount(funded, "latest"),
        p.send("eth_chainId", []),
      ]);
      expect(block).toBeGreaterThanOrEqual(1);
      expect(balance).toBeGreaterThan(0n);
      expect(count).toBeGreaterThanOrEqual(1);
      expect(BigInt(chainId as string)).toBe(BigInt(anvil.chainId));
    } finally {
      p.destroy();
    }
  });

  test("a call the node refuses is that call's error, as ethers maps it (a revert is a revert), the rest of the batch answered", async () => {
    const p = provider();
    try {
      const trap = new Interface(["function alwaysReverts(uint256 x)"]).encodeFunctionData("alwaysReverts", [1]);
      const [reverted, fine] = await Promise.allSettled([p.estimateGas({ from: funded, to: recorder.address, data: trap }), p.getBlockNumber()]);
      expect(reverted.status).toBe("rejected");
      expect(classifyRpcError((reverted as PromiseRejectedResult).reason).kind).toBe("reverted");
      expect(fine.status).toBe("fulfilled");
    } finally {
      p.destroy();
    }
  });

  test("an HTTP error answer is ethers' SERVER_ERROR, a transient fault to us", async () => {
    const server = createServer((_req, res) => res.writeHead(503).end("unavailable"));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const p = provider(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      const error = await p.getBlockNumber().catch((e: unknown) => e);
      expect(isError(error, "SERVER_ERROR")).toBe(true);
      expect(classifyRpcError(error).kind).toBe("transient");
    } finally {
      p.destroy();
      server.close();
    }
  });

  test("fails over to the chain's next URL when one cannot carry the request, and goes back to the first once a probe finds it answering", async () => {
    // The first URL: down (503) until `up`, then anvil's answers; every request body kept.
    let up = false;
    const seen: string[] = [];
    const { url: firstUrl, server: first } = await endpoint((body, res) => {
      seen.push(body);
      if (!up) return void res.writeHead(503).end("unavailable");
      forwardToAnvil(body, res);
    });
    let clock = 0;
    const p = new NativeJsonRpcProvider([firstUrl, anvil.rpcUrl], 5000, Network.from(anvil.chainId), options, () => clock);
    /** Until the first URL has had `n` requests and the probe among them is over (its answer handled). */
    const probed = async (n: number) => {
      for (let i = 0; i < 500 && (seen.length < n || p.probingPrimary); i++) await new Promise((r) => setTimeout(r, 10));
    };
    try {
      expect(await p.getBlockNumber()).toBeGreaterThanOrEqual(1);
      expect(p.activeUrl).toBe(new URL(anvil.rpcUrl).href);
      expect(seen).toHaveLength(1);
      // Stays with the URL that answered...
      await p.getBalance(funded);
      expect(seen).toHaveLength(1);
      // ...a minute later, the request still goes there; the first is only probed, in the background.
      clock += 60_000;
      expect(await p.getBlockNumber()).toBeGreaterThanOrEqual(1);
      await probed(2);
      expect(JSON.parse(seen[1]!)).toMatchObject({ method: "eth_chainId" });
      expect(p.activeUrl).toBe(new URL(anvil.rpcUrl).href);
      // Back up: the next probe finds it answering, and requests return to it.
      up = true;
      clock += 60_000;
      await p.getBlockNumber();
      await probed(3);
      expect(p.activeUrl).toBe(firstUrl);
      expect(await p.getBlockNumber()).toBeGreaterThanOrEqual(1);
      expect(seen).toHaveLength(4);
    } finally {
      p.destroy();
      first.close();
    }
  });

  test("a node's JSON-RPC error (a revert) is its answer: not asked of the next URL", async () => {
    let fallbackCalls = 0;
    const fallback = createServer((_req, res) => {
      fallbackCalls++;
      res.writeHead(503).end();
    });
    await new Promise<void>((r) => fallback.listen(0, "127.0.0.1", r));
    const p = new NativeJsonRpcProvider([anvil.rpcUrl, `http://127.0.0.1:${(fallback.address() as AddressInfo).port}`], 5000, Network.from(anvil.chainId), options);
    try {
      const trap = new Interface(["function alwaysReverts(uint256 x)"]).encodeFunctionData("alwaysReverts", [1]);
      const error = await p.estimateGas({ from: funded, to: recorder.address, data: trap }).catch((e: unknown) => e);
      expect(classifyRpcError(error).kind).toBe("reverted");
      expect(fallbackCalls).toBe(0);
    } finally {
      p.destroy();
      fallback.close();
    }
  });

  test("a provider refusing every call itself (a rate limit, -32005) is passed over for the next URL; refused by all, the calls get the refusal", async () => {
    const { url: limitedUrl, server: limited } = await endpoint((body, res) => {
      const calls = ([] as { id: unknown }[]).concat(JSON.parse(body));
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(calls.map((c) => ({ jsonrpc: "2.0", id: c.id, error: { code: -32005, message: "daily request count exceeded, request rate limited" } }))));
    });
    const p = new NativeJsonRpcProvider([limitedUrl, anvil.rpcUrl], 5000, Network.from(anvil.chainId), options);
    const alone = new NativeJsonRpcProvider([limitedUrl, limitedUrl + "again"], 5000, Network.from(anvil.chainId), options);
    try {
      expect(await p.getBlockNumber()).toBeGreaterThanOrEqual(1);
      expect(p.activeUrl).toBe(new URL(anvil.rpcUrl).href);
      const error = await alone.getBlockNumber().catch((e: unknown) => e);
      expect(String((error as Error).message)).toMatch(/rate limited/);
    } finally {
      p.destroy();
      alone.destroy();
      limited.close();
    }
  });

  test("with every URL down, the first URL's failure is the error", async () => {
    const p = new NativeJsonRpcProvider(["http://127.0.0.1:9", "http://127.0.0.1:9/second"], 2000, Network.from(anvil.chainId), options);
    try {
      const error = await p.getBlockNumber().catch((e: unknown) => e);
      expect(isError(error, "SERVER_ERROR")).toBe(true);
      expect(classifyRpcError(error).kind).toBe("transient");
    } finally {
      p.destroy();
    }
  });

  test("a node that does not answer is ethers' TIMEOUT after the time-out", async () => {
    const server = createServer(() => undefined);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const p = provider(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 300);
    try {
      const started = Date.now();
      const error = await p.getBlockNumber().catch((e: unknown) => e);
      expect(isError(error, "TIMEOUT")).toBe(true);
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      p.destroy();
      server.closeAllConnections();
      server.close();
    }
  });

  /** A node that says it serves `chainId()` and forwards every other call to anvil; the methods it was asked. */
  async function otherChain(chainId: () => number) {
    const methods: string[] = [];
    const { url, server } = await endpoint((body, res) => {
      const calls = ([] as { id: unknown; method: string }[]).concat(JSON.parse(body));
      methods.push(...calls.map((c) => c.method));
      if (calls.length === 1 && calls[0]!.method === "eth_chainId") {
        return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: calls[0]!.id, result: `0x${chainId().toString(16)}` }));
      }
      forwardToAnvil(body, res);
    });
    return { url, methods, close: () => server.close() };
  }

  test("a URL that answers for another chain is not used: its requests go to the next URL, and the listener is told", async () => {
    const wrong = await otherChain(() => 1);
    const told: unknown[][] = [];
    const p = new NativeJsonRpcProvider([wrong.url, anvil.rpcUrl], 5000, Network.from(anvil.chainId), options, Date.now, (...args) => told.push(args));
    const only = new NativeJsonRpcProvider(wrong.url, 5000, Network.from(anvil.chainId), options);
    try {
      expect(await p.getTransactionCount(funded, "latest")).toBeGreaterThanOrEqual(1);
      expect(p.activeUrl).toBe(new URL(anvil.rpcUrl).href);
      expect(told).toEqual([[new URL(wrong.url).host, 1n, BigInt(anvil.chainId)]]);
      // Alone, it is a transient fault that says why, and it is still never asked the call.
      const error = await only.getTransactionCount(funded, "latest").catch((e: unknown) => e);
      expect(classifyRpcError(error).kind).toBe("transient");
      expect(String((error as Error).message)).toMatch(/answers for another chain than 31413/);
      expect(new Set(wrong.methods)).toEqual(new Set(["eth_chainId"]));
    } finally {
      p.destroy();
      only.destroy();
      wrong.close();
    }
  });

  test("asks a URL for its chain again after a minute: one re-pointed at another chain is dropped", async () => {
    let served = anvil.chainId;
    const node = await otherChain(() => served);
    let clock = 0;
    // The network given, as the relay's providers have it: ethers then never asks eth_chainId itself.
    const fixed = { ...options, staticNetwork: Network.from(anvil.chainId) };
    const p = new NativeJsonRpcProvider([node.url, anvil.rpcUrl], 5000, Network.from(anvil.chainId), fixed, () => clock);
    try {
      await p.getBlockNumber();
      await p.getBlockNumber();
      expect(p.activeUrl).toBe(node.url);
      expect(node.methods.filter((m) => m === "eth_chainId")).toHaveLength(1);
      // Re-pointed: within the minute it is still trusted; after it, asked again and passed over.
      served = 1;
      clock += 60_000;
      await p.getBlockNumber();
      expect(node.methods.filter((m) => m === "eth_chainId")).toHaveLength(2);
      expect(p.activeUrl).toBe(new URL(anvil.rpcUrl).href);
    } finally {
      p.destroy();
      node.close();
    }
  });

  test("an answer larger than the cap is a transient fault, not a worker out of memory", async () => {
    // Answers eth_chainId, then streams an endless body to anything else.
    const { url, server } = await endpoint((body, res) => {
      const call = JSON.parse(body) as { id: unknown; method?: string };
      if (call.method === "eth_chainId") return void res.end(JSON.stringify({ jsonrpc: "2.0", id: call.id, result: `0x${anvil.chainId.toString(16)}` }));
      const block = Buffer.alloc(1024 * 1024, 0x20);
      const pump = () => {
        while (!res.destroyed && res.write(block));
        if (!res.destroyed) res.once("drain", pump);
      };
      res.writeHead(200, { "content-type": "application/json" });
      pump();
    });
    const p = provider(url, 60_000);
    try {
      const error = await p.getBlockNumber().catch((e: unknown) => e);
      expect(String((error as Error).message)).toMatch(/answer larger than 67108864 bytes/);
      expect(classifyRpcError(error).kind).toBe("transient");
    } finally {
      p.destroy();
      server.closeAllConnections();
      server.close();
    }
  });
});
