import { Agent, createServer, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { drainableServer } from "./http-drain";

/** A plain HTTP server whose requests wait until the test answers them. */
async function heldServer() {
  const held: ServerResponse[] = [];
  const server = createServer((_req, res) => held.push(res));
  const http = drainableServer(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as AddressInfo).port;
  // A keep-alive client, as load balancers and SDKs are: without being told, it would reuse the connection.
  const agent = new Agent({ keepAlive: true });
  const get = () =>
    new Promise<{ status?: number; connection?: string; error?: string }>((resolve) => {
      const req = request({ host: "127.0.0.1", port, path: "/", agent }, (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode, connection: res.headers.connection }));
      });
      req.on("error", (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
      req.end();
    });
  const untilHeld = async (n: number) => {
    while (held.length < n) await new Promise((r) => setTimeout(r, 5));
  };
  return { http, held, get, untilHeld, agent };
}

describe("drainableServer", () => {
  it("lets a request in flight finish, tells its client to close, and refuses new connections", async () => {
    const { http, held, get, untilHeld, agent } = await heldServer();
    const inFlight = get();
    await untilHeld(1);
    const drained = http.drain(60_000);
    expect(await get()).toEqual({ error: "ECONNREFUSED" });
    held[0]!.end("done");
    expect(await inFlight).toEqual({ status: 200, connection: "close" });
    expect(await drained).toEqual({ cut: 0 });
    agent.destroy();
  });

  it("cuts what is still unanswered at the end of the grace period", async () => {
    const { http, get, untilHeld, agent } = await heldServer();
    const inFlight = get();
    await untilHeld(1);
    expect(await http.drain(50)).toEqual({ cut: 1 });
    expect(await inFlight).toEqual({ error: "ECONNRESET" });
    agent.destroy();
  });
});
