import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One JSON-RPC call as a node receives it. */
export interface RpcCall {
  jsonrpc?: string;
  id: unknown;
  method: string;
  params: unknown[];
}

/** A JSON-RPC answer to give instead of the node's: `{ result }` or `{ error: { code, message } }`. */
export type RpcAnswer = { result: unknown } | { error: { code: number; message: string } };

export interface RpcInterceptor {
  url: string;
  close(): Promise<void>;
}

/**
 * A JSON-RPC endpoint in front of a node (anvil) that hands each call to `intercept` first: an
 * answer it returns is given instead of the node's; undefined forwards the call. Batches are taken
 * apart and answered call by call. For tests that need a node to behave as one that cannot run
 * here does (an L2's gas, an RPC without past state, a node that has seen a nonce used).
 */
export async function startRpcInterceptor(upstream: string, intercept: (call: RpcCall) => Promise<RpcAnswer | undefined> | RpcAnswer | undefined): Promise<RpcInterceptor> {
  const forward = async (call: RpcCall): Promise<unknown> => {
    const answer = await intercept(call);
    if (answer) return { jsonrpc: "2.0", id: call.id, ...answer };
    return (await fetch(upstream, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(call) })).json();
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as RpcCall | RpcCall[];
      (Array.isArray(body) ? Promise.all(body.map(forward)) : forward(body)).then(
        (answer) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer)),
        () => res.writeHead(502).end(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
