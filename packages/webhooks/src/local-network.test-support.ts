import http from "node:http";
import net, { type LookupFunction } from "node:net";

/**
 * Test helpers for the safe HTTP client. Only loopback servers started here are ever connected
 * to; every other destination is answered by an injected lookup or refused before any socket.
 */

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface LocalServer {
  /** `http://127.0.0.1:<port>` or `http://[::1]:<port>`. */
  origin: string;
  port: number;
  /** TCP connections accepted: stays 0 when the client refused before connecting. */
  connections: number;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

export async function startLocalServer(handler: Handler, host: "127.0.0.1" | "::1" = "127.0.0.1"): Promise<LocalServer> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      state.requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body });
      handler(req, res, body);
    });
  });
  // A client that stops reading resets the connection; that is the point of some tests.
  server.on("clientError", (_e, socket) => socket.destroy());
  server.on("connection", (socket) => {
    state.connections += 1;
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  const state: LocalServer = {
    origin: host === "::1" ? `http://[::1]:${port}` : `http://127.0.0.1:${port}`,
    port,
    connections: 0,
    requests: [],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return state;
}

/** A port on 127.0.0.1 that nothing listens on (it was bound a moment ago, then released). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A resolver that answers every name with `addresses`, asynchronously like the real one, in both
 * forms Node asks for (one address, or all of them for happy-eyeballs). `names` records each call.
 */
export function fixedLookup(addresses: string[], names: string[] = []): LookupFunction {
  return (hostname, options, callback) => {
    names.push(hostname);
    const answers = addresses.map((address) => ({ address, family: net.isIP(address) }));
    setImmediate(() => {
      const first = answers[0];
      if (!first) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), "");
      if (options.all) return callback(null, answers);
      callback(null, first.address, first.family);
    });
  };
}

/**
 * Makes every socket connect throw for the rest of the test, and counts the tries: a refusal
 * must be decided before a socket connects, and a bug here must not send a packet anywhere.
 */
export function forbidSocketConnects(): { attempts: () => number; restore: () => void } {
  const spy = jest.spyOn(net.Socket.prototype, "connect").mockImplementation((() => {
    throw new Error("this test forbids opening a connection");
  }) as never);
  return { attempts: () => spy.mock.calls.length, restore: () => spy.mockRestore() };
}
