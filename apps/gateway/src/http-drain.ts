import type { Server } from "node:http";
import type { ServerResponse } from "node:http";

/**
 * Graceful close of the gateway's HTTP server. Call `trackResponses` right after listen; `drain`
 * at shutdown stops accepting connections at once (new ones are refused, so a load balancer
 * sends them to another gateway), closes idle keep-alive connections, answers the requests in
 * flight with `Connection: close` so their sockets end after the response, and waits for them at
 * most `graceMs`; whatever is still open then is cut. Node's own server.close() waits forever on
 * a keep-alive client and never tells it to leave.
 */
export function drainableServer(server: Server) {
  const inFlight = new Set<ServerResponse>();
  let draining = false;

  server.on("request", (_req, res: ServerResponse) => {
    inFlight.add(res);
    res.once("close", () => inFlight.delete(res));
    if (draining && !res.headersSent) res.setHeader("Connection", "close");
  });

  return {
    /** Resolves once every connection is closed; `cut` counts requests still unanswered at the bound. */
    drain: async (graceMs: number): Promise<{ cut: number }> => {
      draining = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const res of inFlight) if (!res.headersSent) res.setHeader("Connection", "close");
      server.closeIdleConnections();
      let timer: NodeJS.Timeout | undefined;
      const inTime = await Promise.race([
        closed.then(() => true),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), graceMs))),
      ]);
      clearTimeout(timer);
      if (inTime) return { cut: 0 };
      const cut = inFlight.size;
      server.closeAllConnections();
      await closed;
      return { cut };
    },
  };
}
