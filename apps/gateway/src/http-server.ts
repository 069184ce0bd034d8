import { createServer, type RequestListener, type Server } from "node:http";
import { cutAnswersNotTaken } from "./answer-deadline";
import { answerClientErrorsAsJson } from "./client-errors";

/** How long a client may hold a connection at each stage; every stage is bounded. */
export interface HttpTimeouts {
  /** The request line and headers must have arrived this long after the request began. */
  headersMs: number;
  /** The whole request, body included. */
  requestMs: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveMs: number;
  /**
   * How often Node looks for requests past `headersMs`/`requestMs`: a timeout fires up to this
   * late. Node's default, 30 s, let a 10 s `headersMs` run to 40 s.
   */
  checkIntervalMs: number;
  /**
   * An answer a client does not take within this long costs its connection, and a connection
   * refused by an error answer (408, 400, 431, 413) is destroyed this long after it at the latest.
   */
  answerMs: number;
}

export const gatewayHttpTimeouts: HttpTimeouts = Object.freeze({
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 5_000,
  checkIntervalMs: 1_000,
  answerMs: 5_000,
});

/**
 * The gateway's HTTP server. Node would answer an HTTP/1.1 request without Host with an empty 400
 * before the app sees it; the app refuses it itself (middleware/require-host.ts) so the answer is
 * JSON like every other error. Requests the parser refuses are answered as JSON too. No client
 * holds a connection past `timeouts`, whatever it does or fails to do (docs/operations.md).
 */
export function createHttpServer(app: RequestListener, timeouts: HttpTimeouts = gatewayHttpTimeouts): Server {
  const server = createServer({ requireHostHeader: false, connectionsCheckingInterval: timeouts.checkIntervalMs });
  server.headersTimeout = timeouts.headersMs;
  server.requestTimeout = timeouts.requestMs;
  server.keepAliveTimeout = timeouts.keepAliveMs;
  answerClientErrorsAsJson(server, timeouts.answerMs);
  // Before the app: an answer the app finishes synchronously must already be watched.
  cutAnswersNotTaken(server, timeouts.answerMs);
  server.on("request", app);
  return server;
}
