import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { createServer as createTcpServer, type AddressInfo } from "node:net";

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A webhook receiver on loopback (`port` 0: any free one). It answers with the statuses in
 * `answers`, in order, then 200, and keeps every request it got; `delayMs` holds each answer
 * that long (a receiver that takes its time keeps deliveries in flight).
 */
export async function receiver(options: { answers?: number[]; port?: number; delayMs?: number } = {}) {
  const answers = [...(options.answers ?? [])];
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.statusCode = answers.shift() ?? 200;
      if (options.delayMs) setTimeout(() => res.end("ok"), options.delayMs);
      else res.end("ok");
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return { port, url: `http://127.0.0.1:${port}/hook`, received, close: () => new Promise((r) => server.close(r)) };
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
