import { maxHeaderSize, type Server } from "node:http";
import type { Duplex } from "node:stream";

/** Node's reasons for refusing a request before Express sees it, as [status, reason, message]. */
function describe(code: string | undefined, maxHeaderSize: number): [number, string, string] {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return [431, "Request Header Fields Too Large", `Request line and headers are larger than ${maxHeaderSize} bytes; send shorter headers and URL`];
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return [413, "Payload Too Large", "Chunk extensions of the request body are too large"];
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return [408, "Request Timeout", "The request was not received completely in time"];
    default:
      return [400, "Bad Request", `Malformed HTTP request (${code ?? "unknown parse error"}); send a well-formed HTTP/1.1 request`];
  }
}

/**
 * Requests the HTTP parser refuses (headers too large, a malformed request line or header, a body
 * shorter than its Content-Length) or that time out (`headersTimeout`, `requestTimeout`) never
 * reach Express; Node answers them with an empty body. This answers them as JSON with a `message`
 * like every other error, unless part of a response was already written on the connection.
 *
 * `end()` alone only half-closes: the server's socket (allowHalfOpen) then waits for the client's
 * FIN, and a client that neither reads nor closes held it for as long as it liked. A timed-out
 * request is also no longer watched by Node's timeouts, so nothing else would ever free it. The
 * socket is therefore destroyed `releaseAfterMs` after the answer at the latest: time for a
 * client that reads to take the answer and close first, whether or not the answer could be
 * written (a client that does not read leaves it in our write buffer for good).
 */
export function answerClientErrorsAsJson(server: Server, releaseAfterMs: number): void {
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) => {
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const [status, reason, message] = describe(err.code, maxHeaderSize);
    const body = JSON.stringify({ message });
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    const release = setTimeout(() => socket.destroy(), releaseAfterMs).unref();
    socket.once("close", () => clearTimeout(release));
  });
}
