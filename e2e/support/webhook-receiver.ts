import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTcpServer, type AddressInfo } from "node:net";

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A webhook receiver on loopback (`port` 0: any free one). It answers with the statuses in
 * `answers`, in order, then 200, each with `headers` (a `location`, say), and keeps every request
 * it got; `delayMs` holds each answer that long (a receiver that takes its time keeps deliveries in
 * flight). `hosts`: the addresses it listens on, all on the same port (default 127.0.0.1 only);
 * `url` names the first.
 */
export async function receiver(
  options: { answers?: number[]; port?: number; delayMs?: number; headers?: Record<string, string>; hosts?: string[] } = {},
) {
  const answers = [...(options.answers ?? [])];
  const received: Received[] = [];
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.statusCode = answers.shift() ?? 200;
      for (const [name, value] of Object.entries(options.headers ?? {})) res.setHeader(name, value);
      if (options.delayMs) setTimeout(() => res.end("ok"), options.delayMs);
      else res.end("ok");
    });
  };
  const hosts = options.hosts ?? ["127.0.0.1"];
  const servers: Server[] = [];
  let port = options.port ?? 0;
  for (const host of hosts) {
    const server = createServer(handle);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => resolve());
    });
    port = (server.address() as AddressInfo).port;
    servers.push(server);
  }
  const first = hosts[0] as string;
  return {
    port,
    url: `http://${first.includes(":") ? `[${first}]` : first}:${port}/hook`,
    received,
    close: () => Promise.all(servers.map((server) => new Promise((r) => server.close(r)))),
  };
}

/**
 * A destination that is down for as long as the test holds it: it accepts each connection and
 * resets it at once, so every attempt ends without an HTTP answer. Unlike a closed port, no other
 * test running beside this one can start listening on it.
 */
export async function downReceiver(): Promise<{ url: string; close: () => Promise<unknown> }> {
  const server = createTcpServer((socket) => socket.resetAndDestroy());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/hook`, close: () => new Promise((r) => server.close(r)) };
}

/** A loopback port nothing listens on (it was free a moment ago; another test may take it). */
export async function closedPort(): Promise<number> {
  const r = await receiver();
  await r.close();
  return r.port;
}

/** Polls `check` every 50 ms until it holds; fails after `timeoutMs`. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}
