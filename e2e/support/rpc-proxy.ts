import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * A JSON-RPC proxy in front of a node, to stop a worker at an exact point of its conversation
 * with the chain without test hooks in production code: register the chain with the proxy's URL
 * and arm a trap for the next `eth_sendRawTransaction`.
 *
 * - "before-broadcast": the transaction is not forwarded; `spring()` runs (e.g. SIGKILL).
 * - "after-broadcast": the transaction is forwarded and the node's answer awaited; then
 *   `spring()` runs and the answer is never delivered.
 *
 * Once sprung, every request on a connection opened before is held unanswered: nothing the
 * doomed process sends after that point reaches the node. Connections opened afterwards (the
 * next process) pass through.
 */
export type Trap = "before-broadcast" | "after-broadcast";

export interface RpcProxy {
  url: string;
  /** Resolves once the trap has sprung, with the raw transaction it caught. */
  arm(trap: Trap, spring: () => void): Promise<{ rawTransaction: string }>;
  /** eth_sendRawTransaction calls that reached the node, in order. */
  forwardedRawTransactions: string[];
  close(): Promise<void>;
}

interface RpcCall {
  method?: string;
  params?: unknown[];
}

export async function startRpcProxy(targetUrl: string): Promise<RpcProxy> {
  let generation = 0;
  const generationOf = new WeakMap<Socket, number>();
  let armed: { trap: Trap; spring: () => void; caught: (raw: string) => void } | undefined;
  const forwardedRawTransactions: string[] = [];

  const forward = async (body: string) => {
    const answer = await fetch(targetUrl, { method: "POST", headers: { "content-type": "application/json" }, body });
    return { status: answer.status, text: await answer.text() };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    if ((generationOf.get(req.socket) ?? 0) < generation) return; // from the killed process: hold

    const calls = ([] as RpcCall[]).concat(JSON.parse(body) as RpcCall | RpcCall[]);
    // The workers batch their calls: one request may carry several transactions.
    const raws = calls.filter((c) => c.method === "eth_sendRawTransaction").map((c) => c.params?.[0]).filter((r): r is string => typeof r === "string");
    const raw = raws[0];
    const trap = typeof raw === "string" ? armed : undefined;
    if (trap && typeof raw === "string") {
      armed = undefined;
      generation++;
      if (trap.trap === "after-broadcast") {
        await forward(body);
        forwardedRawTransactions.push(...raws);
      }
      trap.spring();
      trap.caught(raw);
      req.socket.destroy();
      return;
    }

    const answer = await forward(body);
    forwardedRawTransactions.push(...raws);
    if ((generationOf.get(req.socket) ?? 0) < generation) return; // sprung meanwhile: the answer is lost
    res.writeHead(answer.status, { "content-type": "application/json" }).end(answer.text);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" }).end(JSON.stringify({ error: String(error) }));
    });
  });
  server.on("connection", (socket) => generationOf.set(socket, generation));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    forwardedRawTransactions,
    arm: (trap, spring) =>
      new Promise((resolve) => {
        armed = { trap, spring, caught: (rawTransaction) => resolve({ rawTransaction }) };
      }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
