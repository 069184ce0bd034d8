import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * A JSON-RPC proxy in front of a node that misbehaves the ways hosted RPCs do, at random (seeded):
 * - "error": a JSON-RPC error (-32603 internal error) or an HTTP 502/503 instead of an answer;
 * - "timeout": the request is never answered (the client's time-out must fire);
 * - "lost": an eth_sendRawTransaction is forwarded and the node takes it, but the answer is
 *   lost (connection dropped) or replaced by an error.
 * `enabled = false` makes it a plain proxy (the fault is over).
 */
export type ChaosKind = "error" | "timeout" | "lost";

export interface ChaosRates {
  error: number;
  timeout: number;
  /** Of eth_sendRawTransaction calls only. */
  lost: number;
}

export interface ChaosRpcProxy {
  url: string;
  enabled: boolean;
  seed: number;
  /** How many of each fault were injected, and how many calls passed through. */
  counts: Record<ChaosKind | "passed", number>;
  close(): Promise<void>;
}

/** mulberry32: a small seeded PRNG, so a failing run can be repeated with RELAY_FAULTS_SEED. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface RpcCall {
  id?: unknown;
  method?: string;
}

export async function startChaosRpcProxy(targetUrl: string, rates: ChaosRates, seed = Number(process.env.RELAY_FAULTS_SEED ?? Date.now() % 2 ** 31)): Promise<ChaosRpcProxy> {
  const random = prng(seed);
  const held = new Set<Socket>();
  const counts: ChaosRpcProxy["counts"] = { error: 0, timeout: 0, lost: 0, passed: 0 };

  const forward = async (body: string) => {
    const answer = await fetch(targetUrl, { method: "POST", headers: { "content-type": "application/json" }, body });
    return { status: answer.status, text: await answer.text() };
  };
  const rpcError = (calls: RpcCall[], single: boolean) => {
    const errors = calls.map((c) => ({ jsonrpc: "2.0", id: c.id ?? null, error: { code: -32603, message: "internal error (injected by the fault suite)" } }));
    return JSON.stringify(single ? errors[0] : errors);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const parsed = JSON.parse(body) as RpcCall | RpcCall[];
    const calls = ([] as RpcCall[]).concat(parsed);
    const sends = calls.some((c) => c.method === "eth_sendRawTransaction");

    if (proxy.enabled) {
      const roll = random();
      if (roll < rates.error) {
        counts.error++;
        if (random() < 0.5) res.writeHead(200, { "content-type": "application/json" }).end(rpcError(calls, !Array.isArray(parsed)));
        else res.writeHead(random() < 0.5 ? 502 : 503, { "content-type": "text/plain" }).end("bad gateway (injected)");
        return;
      }
      if (roll < rates.error + rates.timeout) {
        counts.timeout++;
        held.add(req.socket); // never answered; dropped on close
        return;
      }
      // The first broadcast is always lost: with few broadcasts (ethers batches them with other
      // calls), chance alone left some runs without the fault this scenario is about.
      if (sends && (counts.lost === 0 || random() < rates.lost)) {
        counts.lost++;
        await forward(body); // the node has it now
        if (random() < 0.5) req.socket.destroy();
        else res.writeHead(200, { "content-type": "application/json" }).end(rpcError(calls, !Array.isArray(parsed)));
        return;
      }
    }
    counts.passed++;
    const answer = await forward(body);
    res.writeHead(answer.status, { "content-type": "application/json" }).end(answer.text);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" }).end(JSON.stringify({ error: String(error) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  const proxy: ChaosRpcProxy = {
    url: `http://127.0.0.1:${port}`,
    enabled: false,
    seed,
    counts,
    close: async () => {
      for (const socket of held) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
