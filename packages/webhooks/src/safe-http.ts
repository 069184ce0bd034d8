import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { nonPublicRange } from "./address-policy";
import { guardedLookup } from "./guarded-lookup";
import { hostAddress, parseHttpUrl } from "./http-url";
import { classifyFailure, type RequestPhase, type SafeHttpFailure, type SafeHttpFailureKind } from "./safe-http-failure";

export interface SafeHttpOptions {
  /** Let loopback and private destinations through: tests and local development only. */
  allowPrivateNetworks: boolean;
  /** From the start until the TCP connection is up, name resolution included. */
  connectTimeoutMs?: number;
  /** From the start until the response's status line and headers have arrived, and the body is read. */
  totalTimeoutMs?: number;
  maxResponseBytes?: number;
  /** Resolves names instead of the system resolver (tests answer without any packet leaving). */
  lookup?: LookupFunction;
}

export interface SafeHttpResponse {
  status: number;
  /** The body as UTF-8, at most maxResponseBytes of it. */
  body: string;
  /** The body is incomplete: cut at maxResponseBytes, at the total time-out, or by the peer. */
  truncated: boolean;
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
}

const USER_AGENT = "relay-webhooks/1";

const msSince = (started: number) => Math.round(performance.now() - started);
const failure = (started: number, cause: { error: SafeHttpFailureKind; message: string }): SafeHttpFailure => ({
  status: 0,
  ...cause,
  durationMs: msSince(started),
});

export function createSafeHttpClient(options: SafeHttpOptions): SafeHttpClient {
  const settings = {
    connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
    totalTimeoutMs: options.totalTimeoutMs ?? 10_000,
    maxResponseBytes: options.maxResponseBytes ?? 65_536,
    lookup: options.allowPrivateNetworks ? options.lookup : guardedLookup(options.lookup),
  };
  return {
    async post(raw, body, headers = {}) {
      const started = performance.now();
      const parsed = parseHttpUrl(raw);
      if (!parsed.url) return failure(started, { error: "bad-url", message: `the URL ${parsed.problem}` });
      // An IP literal is connected to as written, without a lookup, so it is checked here.
      const literal = hostAddress(parsed.url);
      const range = literal === null || options.allowPrivateNetworks ? null : nonPublicRange(literal);
      if (range !== null) return failure(started, { error: "refused-address", message: `${literal} (${range}) is not a public address` });
      return send(parsed.url, body, headers, settings, started);
    },
  };
}

interface SendSettings {
  connectTimeoutMs: number;
  totalTimeoutMs: number;
  maxResponseBytes: number;
  lookup: LookupFunction | undefined;
}

function send(url: URL, body: string, headers: Record<string, string>, s: SendSettings, started: number): Promise<SafeHttpResult> {
  return new Promise((resolve) => {
    const payload = Buffer.from(body, "utf8");
    const req = (url.protocol === "https:" ? https : http).request(url, {
      // Node's client never follows redirects: a 3xx comes back like any other non-2xx status.
      method: "POST",
      // A fresh connection per delivery, no pool: deliveries to one receiver are sparse, an idle
      // socket to every receiver is not worth holding, and each attempt's time-outs measure alike.
      agent: false,
      lookup: s.lookup,
      headers: { "content-type": "application/json", "user-agent": USER_AGENT, ...headers, "content-length": String(payload.length) },
    });
    let phase: RequestPhase = "connecting";
    let status = 0;
    let received = 0;
    const chunks: Buffer[] = [];
    let settled = false;

    const settle = (result: SafeHttpResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      clearTimeout(totalTimer);
      req.destroy();
      resolve(result);
    };
    const respond = (truncated: boolean) =>
      settle({ status, body: Buffer.concat(chunks).toString("utf8"), truncated, durationMs: msSince(started) });
    // Once the status line has arrived the receiver has answered: a body cut short afterwards
    // does not turn that answer into "no response".
    const failed = (e: unknown) =>
      phase === "reading" ? respond(true) : settle(failure(started, classifyFailure(e, phase)));

    const connectTimer = setTimeout(
      () => settle(failure(started, { error: "timeout", message: `not connected within ${s.connectTimeoutMs} ms` })),
      s.connectTimeoutMs,
    );
    const totalTimer = setTimeout(() => {
      if (phase === "reading") return respond(true);
      settle(failure(started, { error: "timeout", message: `no response within ${s.totalTimeoutMs} ms` }));
    }, s.totalTimeoutMs);

    req.on("socket", (socket) => {
      const connected = () => {
        clearTimeout(connectTimer);
        if (phase === "connecting") phase = url.protocol === "https:" ? "tls" : "waiting";
      };
      if (socket.connecting) socket.once("connect", connected);
      else connected();
      socket.once("secureConnect", () => {
        if (phase === "tls") phase = "waiting";
      });
    });
    req.on("response", (res) => {
      phase = "reading";
      status = res.statusCode ?? 0;
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
