import dgram from "node:dgram";
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

export interface LocalDnsServer {
  /** `127.0.0.1:<port>`, as a resolver's server list takes it. */
  address: string;
  /** Names asked for, with their query type (A, AAAA). */
  queries: string[];
  close(): Promise<void>;
}

/**
 * A DNS server on 127.0.0.1 (UDP) that answers A and AAAA queries from `records` (name → IPv4
 * and IPv6 addresses), no data for a known name without the asked family, NXDOMAIN otherwise; a
 * name in `silent` gets no answer at all (a name server that never answers).
 */
export async function startDnsServer(records: Record<string, string[]>, silent: string[] = []): Promise<LocalDnsServer> {
  const socket = dgram.createSocket("udp4");
  const queries: string[] = [];
  socket.on("message", (query, peer) => {
    // Header (12 bytes), then the question: labels, type, class.
    const labels: string[] = [];
    let at = 12;
    while (query[at]! > 0) {
      labels.push(query.subarray(at + 1, at + 1 + query[at]!).toString("ascii"));
      at += query[at]! + 1;
    }
    const question = query.subarray(12, at + 5);
    const type = query.readUInt16BE(at + 1);
    const name = labels.join(".").toLowerCase();
    queries.push(`${name} ${type === 28 ? "AAAA" : type === 1 ? "A" : type}`);
    if (silent.includes(name)) return;
    const known = records[name];
    const family = type === 28 ? 6 : type === 1 ? 4 : 0;
    const answers = (known ?? []).filter((a) => net.isIP(a) === family);
    const header = Buffer.alloc(12);
    header.writeUInt16BE(query.readUInt16BE(0), 0);
    header.writeUInt16BE(known ? 0x8180 : 0x8183, 2); // a response, recursion available; NXDOMAIN for an unknown name
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const answerRecords = answers.map((address) => {
      const data = family === 4 ? Buffer.from(address.split(".").map(Number)) : Buffer.from(new Uint8Array(ipv6Bytes(address)));
      const rr = Buffer.alloc(12);
      rr.writeUInt16BE(0xc00c, 0); // the question's name
      rr.writeUInt16BE(type, 2);
      rr.writeUInt16BE(1, 4); // IN
      rr.writeUInt32BE(60, 6);
      rr.writeUInt16BE(data.length, 10);
      return Buffer.concat([rr, data]);
    });
    socket.send(Buffer.concat([header, question, ...answerRecords]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", () => resolve()));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    queries,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/** The 16 bytes of an IPv6 address in text form (`::1`, `fd00::5`). */
function ipv6Bytes(address: string): number[] {
  const [head, tail] = address.split("::") as [string, string | undefined];
  const groups = (part: string | undefined) => (part ? part.split(":").map((g) => parseInt(g, 16)) : []);
  const front = groups(head);
  const back = groups(tail);
  const all = [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  return all.flatMap((g) => [g >> 8, g & 0xff]);
}
