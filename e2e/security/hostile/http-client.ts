import http from "node:http";
import net from "node:net";

export interface HttpCall {
  method: string;
  path: string;
  /** An array value sends the header once per element (duplicate headers). */
  headers?: http.OutgoingHttpHeaders;
  body?: Buffer | string;
}

export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/**
 * Requests over node:http with keep-alive sockets, so thousands of cases do not each pay a TCP
 * handshake. node:http rather than fetch: fetch refuses duplicate or forbidden headers, and
 * hostile headers are what these tests send.
 */
export function keepAliveClient(baseUrl: string, maxSockets = 4) {
  const { hostname, port } = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const send = (call: HttpCall): Promise<HttpAnswer> =>
    new Promise((resolve, reject) => {
      // node:http frames a GET or DELETE body only with an explicit Content-Length; without it the
      // bytes would be read as the next request on the connection.
      const headers = call.body === undefined ? call.headers : { ...call.headers, "content-length": Buffer.byteLength(call.body) };
      const request = http.request({ host: hostname, port, method: call.method, path: call.path, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      });
      request.on("error", reject);
      request.end(call.body);
    });
  return { send, close: () => agent.destroy() };
}

/**
 * Bytes straight onto a socket (requests node:http would refuse to send); the answer as text,
 * read until the server closes. `halfClose` closes the write side after the bytes, for a request
 * that is incomplete on purpose (Node then ends the request, and the connection with it).
 */
export function rawRequest(baseUrl: string, bytes: Buffer | string, options: { halfClose?: boolean } = {}): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => (options.halfClose ? socket.end(bytes) : socket.write(bytes)));
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("end", () => {
      socket.destroy();
      resolve(Buffer.concat(chunks).toString("utf8"));
    });
    socket.on("error", reject);
    // A server that keeps the connection open answers within this time or not at all.
    socket.setTimeout(10_000, () => socket.end());
  });
}

/** Splits a raw HTTP/1.1 answer into status, headers and body, past interim (1xx) answers. */
export function parseRawAnswer(raw: string): HttpAnswer {
  let text = raw;
  while (/^HTTP\/1\.[01] 1\d\d /.test(text) && text.includes("\r\n\r\n")) text = text.slice(text.indexOf("\r\n\r\n") + 4);
  const end = text.indexOf("\r\n\r\n");
  const head = end < 0 ? text : text.slice(0, end);
  const [statusLine = "", ...lines] = head.split("\r\n");
  const headers: http.IncomingHttpHeaders = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(" ")[1] ?? 0), headers, text: end < 0 ? "" : text.slice(end + 4) };
}
