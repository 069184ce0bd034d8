import type { Server } from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";

/** The connections the server holds open (accepted and not yet closed on its side). */
export function openConnections(server: Server): Promise<number> {
  return new Promise((resolve, reject) => server.getConnections((err, n) => (err ? reject(err) : resolve(n))));
}

/** Waits until the server holds at most `n` connections; gives up after `deadlineMs`. The last count. */
export async function connectionsFallTo(server: Server, n: number, deadlineMs: number): Promise<number> {
  const until = Date.now() + deadlineMs;
  let open = await openConnections(server);
  while (open > n && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    open = await openConnections(server);
  }
  return open;
}

/** Resolves once the server has accepted `n` connections from now on (some may be closed by then). */
export function accepted(server: Server, n: number): Promise<void> {
  let seen = 0;
  return new Promise((resolve) => {
    const count = () => {
      if (++seen < n) return;
      server.off("connection", count);
      resolve();
    };
    server.on("connection", count);
  });
}

/**
 * A raw client that writes `bytes` (nothing if empty) and then neither reads nor closes, as a
 * hostile or broken client does. The test destroys it.
 */
export function silentClient(server: Server, bytes: string): Promise<net.Socket> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => {
      socket.off("error", reject);
      socket.on("error", () => undefined);
      if (bytes) socket.write(bytes);
      resolve(socket);
    });
    socket.pause();
    socket.once("error", reject);
  });
}
