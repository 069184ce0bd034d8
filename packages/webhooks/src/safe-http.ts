import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { refusedRange } from "./address-policy";
import { guardedLookup } from "./guarded-lookup";
import { hostAddress, parseHttpUrl } from "./http-url";
import { resolverLookup } from "./resolver-lookup";
import { classifyFailure, type RequestPhase, type SafeHttpFailure, type SafeHttpFailureKind } from "./safe-http-failure";

export interface SafeHttpOptions {
  /** Let loopback and private-network destinations through (never link-local or metadata): tests and local development only. */
  allowPrivateNetworks: boolean;
  /** From the start until the TCP connection is up, name resolution included. */
  connectTimeoutMs?: number;
  /** From the start until the response's status line and headers have arrived: the answer. */
  totalTimeoutMs?: number;
  /**
   * How long the body is read once the answer has arrived (never past the total time-out). The
   * body does not change the answer; a body complete by then lets the connection be kept.
   */
  bodyTimeoutMs?: number;
  maxResponseBytes?: number;
  /**
   * DNS servers that resolve callback hosts (`1.1.1.1`, `[2606:4700::1111]:53`); the system's when
   * absent. Names are resolved asynchronously, never on libuv's thread pool (resolver-lookup.ts).
   */
  dnsServers?: readonly string[] | undefined;
  /** Resolves names instead of DNS (tests answer without any packet leaving). */
  lookup?: LookupFunction;
}

export interface SafeHttpResponse {
  status: number;
  /** The body as UTF-8, at most maxResponseBytes of it. */
  body: string;
  /** The body is incomplete: cut at maxResponseBytes, at the body or total time-out, or by the peer. */
  truncated: boolean;
  /** From the start until the status line and headers arrived: when the receiver answered. */
  durationMs: number;
  error?: undefined;
}

export type SafeHttpResult = SafeHttpResponse | SafeHttpFailure;

export interface SafeHttpClient {
  /**
   * POST `body` to `url`. Network conditions come back as a failure with status 0, never as an
   * exception; only a programming error (a header value Node refuses) rejects.
   */
  post(url: string, body: string, headers?: Record<string, string>): Promise<SafeHttpResult>;
  /** Closes the idle connections it keeps (at shutdown; they do not keep the process alive). */
  close(): void;
}

/**
 * Idle connections are closed after this: below the keep-alive time-outs servers commonly use
 * (Node 5 s, nginx 75 s), so a connection is rarely reused just as its server closes it.
 */
const IDLE_SOCKET_MS = 4_000;

/** Errors of a kept-alive connection the server closed just as it was reused. */
const STALE_SOCKET_CODES = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED"]);

/** Sent with every delivery; docs/webhooks.md shows it. */
export const USER_AGENT = "relay-webhooks/1";

const msSince = (started: number) => Math.round(performance.now() - started);
const failure = (started: number, cause: { error: SafeHttpFailureKind; message: string }): SafeHttpFailure => ({
  status: 0,
  ...cause,
  durationMs: msSince(started),
});

export function createSafeHttpClient(options: SafeHttpOptions): SafeHttpClient {
  const connectTimeoutMs = options.connectTimeoutMs ?? 5_000;
  // A query is sent twice within the connect time-out, which bounds the whole look-up anyway.
  const resolve = options.lookup ?? resolverLookup({ servers: options.dnsServers, queryTimeoutMs: Math.max(250, Math.floor(connectTimeoutMs / 2)) });
  const settings = {
    connectTimeoutMs,
    totalTimeoutMs: options.totalTimeoutMs ?? 10_000,
    bodyTimeoutMs: options.bodyTimeoutMs ?? 1_000,
    maxResponseBytes: options.maxResponseBytes ?? 65_536,
    lookup: guardedLookup(resolve, options.allowPrivateNetworks),
  };
  // Connections are kept between deliveries to the same receiver: a new TCP (and TLS) connection
  // per delivery was a fifth of the worker's CPU under load. Only the guarded lookup opens them, so
  // a kept connection goes to an address that was checked when it was opened (a name that
  // resolves elsewhere later is checked again for any new connection).
  const agentOptions = { keepAlive: true, timeout: IDLE_SOCKET_MS, scheduling: "lifo" as const };
  const agents = { "http:": new http.Agent(agentOptions), "https:": new https.Agent(agentOptions) };
  return {
    async post(raw, body, headers = {}) {
      const started = performance.now();
      const parsed = parseHttpUrl(raw);
      if (!parsed.url) return failure(started, { error: "bad-url", message: `the URL ${parsed.problem}` });
      // An IP literal is connected to as written, without a lookup, so it is checked here.
      const literal = hostAddress(parsed.url);
      const range = literal === null ? null : refusedRange(literal, options.allowPrivateNetworks);
      if (range !== null) return failure(started, { error: "refused-address", message: `${literal} (${range}) is not a public address` });
      const agent = agents[parsed.url.protocol as keyof typeof agents];
      const result = await send(parsed.url, body, headers, settings, started, agent);
      // A kept connection the server had closed: once more, on a new connection. Only when
      // nothing came back, so the receiver saw at most a request it could not answer.
      if (result !== STALE) return result;
      // Within what is left of the attempt's time-out: a stale connection does not buy a second one.
      const left = Math.max(1, settings.totalTimeoutMs - (performance.now() - started));
      const fresh = await send(parsed.url, body, headers, { ...settings, totalTimeoutMs: left, connectTimeoutMs: Math.min(settings.connectTimeoutMs, left) }, started, false);
      // A new connection is never reused, so it cannot come back stale.
      return fresh === STALE ? failure(started, { error: "response-failed", message: "connection closed" }) : fresh;
    },
    // Idle connections only. A POST still in flight belongs to a delivery handed back at shutdown,
    // which may still be running: cutting its connection made it record a spurious failure (or, on
    // a reused connection, look stale and be sent again) while another replica delivered it.
    close: () => {
      for (const agent of Object.values(agents)) for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
    },
  };
}

/** What send() answers when a reused connection failed before any response: try a new one. */
const STALE = Symbol("stale kept-alive connection");

interface SendSettings {
  connectTimeoutMs: number;
  totalTimeoutMs: number;
  bodyTimeoutMs: number;
  maxResponseBytes: number;
  lookup: LookupFunction | undefined;
}

function send(
  url: URL,
  body: string,
  headers: Record<string, string>,
  s: SendSettings,
  started: number,
  agent: http.Agent | false,
): Promise<SafeHttpResult | typeof STALE> {
  return new Promise((resolve) => {
    const payload = Buffer.from(body, "utf8");
    const req = (url.protocol === "https:" ? https : http).request(url, {
      // Node's client never follows redirects: a 3xx comes back like any other non-2xx status.
      method: "POST",
      agent,
      lookup: s.lookup,
      headers: { "content-type": "application/json", "user-agent": USER_AGENT, ...headers, "content-length": String(payload.length) },
    });
    let phase: RequestPhase = "connecting";
    let status = 0;
    let answeredMs = 0;
    let received = 0;
    const chunks: Buffer[] = [];
    let settled = false;
    let bodyTimer: NodeJS.Timeout | undefined;

    /** `keep`: the response was read to its end, so the connection can serve the next delivery. */
    const settle = (result: SafeHttpResult | typeof STALE, keep = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      clearTimeout(totalTimer);
      clearTimeout(bodyTimer);
      if (!keep) req.destroy();
      resolve(result);
    };
    const respond = (truncated: boolean) =>
      settle({ status, body: Buffer.concat(chunks).toString("utf8"), truncated, durationMs: answeredMs }, !truncated);
    // Once the status line has arrived the receiver has answered: a body cut short afterwards
    // does not turn that answer into "no response".
    const failed = (e: unknown) => {
      if (phase === "reading") return respond(true);
      if (req.reusedSocket && STALE_SOCKET_CODES.has(String((e as NodeJS.ErrnoException).code))) return settle(STALE);
      settle(failure(started, classifyFailure(e, phase)));
    };

    const connectTimer = setTimeout(
      () => settle(failure(started, { error: "timeout", message: `not connected within ${s.connectTimeoutMs} ms` })),
      s.connectTimeoutMs,
    );
    const totalTimer = setTimeout(() => {
      if (phase === "reading") return respond(true);
      settle(failure(started, { error: "timeout", message: `no response within ${s.totalTimeoutMs} ms` }));
    }, s.totalTimeoutMs);

    req.on("socket", (socket) => {
      if (!socket.connecting) {
        // A kept connection, up (and past its TLS handshake) already. No listeners on it: they
        // would pile up over the deliveries it serves.
        clearTimeout(connectTimer);
        phase = "waiting";
        return;
      }
      socket.once("connect", () => {
        clearTimeout(connectTimer);
        if (phase === "connecting") phase = url.protocol === "https:" ? "tls" : "waiting";
      });
      socket.once("secureConnect", () => {
        if (phase === "tls") phase = "waiting";
      });
    });
    req.on("response", (res) => {
      phase = "reading";
      status = res.statusCode ?? 0;
      answeredMs = msSince(started);
      // The status is the answer. A body still coming after a short while (a receiver trickling
      // it) is cut, and its connection closed: it must not hold the caller until the total time-out.
      bodyTimer = setTimeout(() => respond(true), s.bodyTimeoutMs);
      res.on("data", (chunk: Buffer) => {
        const room = s.maxResponseBytes - received;
        chunks.push(chunk.subarray(0, room));
        received += Math.min(chunk.length, room);
        // Stop reading, and close the connection, as soon as the limit is passed.
        if (chunk.length > room) respond(true);
      });
      res.on("end", () => respond(false));
      res.on("error", failed);
      res.on("close", () => respond(!res.complete));
    });
    // Stays attached after settling: the destroy in settle() may still emit an error here.
    req.on("error", failed);
    req.end(payload);
  });
}
