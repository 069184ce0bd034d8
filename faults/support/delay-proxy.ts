import { createServer, connect, type Server, type Socket } from "node:net";

export interface DelayProxy {
  /** `url` with its host and port replaced by the proxy's. */
  via(url: string): string;
  close(): Promise<void>;
}

/**
 * A TCP proxy that hands the server's bytes to the client `delayMs` late (in order; the client's
 * bytes go through at once). Put between the gateway and Postgres, a statement has committed
 * `delayMs` before the gateway learns it: a gateway killed in that time leaves a stored request
 * that it never answered and whose job it never enqueued.
 */
export async function startDelayProxy(target: { host: string; port: number }, delayMs: number): Promise<DelayProxy> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.on("data", (chunk: Buffer) => setTimeout(() => client.writable && client.write(chunk), delayMs));
    upstream.on("end", () => setTimeout(() => client.end(), delayMs));
    client.on("close", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    via: (url) => {
      const u = new URL(url);
      u.hostname = "127.0.0.1";
      u.port = String(port);
      return u.toString();
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
