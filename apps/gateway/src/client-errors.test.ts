import { createServer, type Server } from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { answerClientErrorsAsJson } from "./client-errors";
import { accepted, connectionsFallTo, silentClient } from "./open-connections.test-support";

/** Writes raw bytes and reads until the server closes the connection. */
function exchange(server: Server, bytes: string): Promise<{ status: number; contentType: string; body: string }> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(bytes));
    let text = "";
    socket.on("data", (d: Buffer) => (text += d.toString("utf8")));
    socket.on("end", () => {
      socket.destroy();
      const [head = "", body = ""] = text.split("\r\n\r\n");
      resolve({ status: Number(head.split(" ")[1]), contentType: /content-type: ([^\r]*)/i.exec(head)?.[1] ?? "", body });
    });
    socket.on("error", reject);
  });
}

describe("requests the HTTP parser refuses", () => {
  let server: Server;
  beforeAll(async () => {
    server = createServer((_req, res) => res.end("{}"));
    answerClientErrorsAsJson(server, 60_000);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  });
  afterAll(() => new Promise((r) => server.close(r)));

  it.each([
    ["headers over the limit", `GET / HTTP/1.1\r\nHost: x\r\nX-Pad: ${"a".repeat(20_000)}\r\n\r\n`, 431, /headers are larger than 16384 bytes/],
    ["a malformed request line", "GARBAGE\r\n\r\n", 400, /Malformed HTTP request \(HPE_/],
    ["a control character in a header", "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\u0001b\r\n\r\n", 400, /Malformed HTTP request/],
    ["both Transfer-Encoding and Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n", 400, /Malformed HTTP request/],
  ])("answers %s with JSON and a message", async (_name, request, status, message) => {
    const answer = await exchange(server, request);
    expect(answer.status).toBe(status);
    expect(answer.contentType).toBe("application/json; charset=utf-8");
    expect((JSON.parse(answer.body) as { message: string }).message).toMatch(message);
  });
});

describe("the connection of a refused request", () => {
  let server: Server;
  const clients: net.Socket[] = [];
  beforeAll(async () => {
    server = createServer({ connectionsCheckingInterval: 100 }, (_req, res) => res.end("{}"));
    server.headersTimeout = 500;
    server.requestTimeout = 1000;
    answerClientErrorsAsJson(server, 500);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  });
  afterAll(async () => {
    for (const c of clients) c.destroy();
    await new Promise((r) => server.close(r));
  });

  // Node stops timing a request once it timed out, so after the 408 only our handler can free it.
  it("is released after the 408, 400 or 431 even if the client neither reads nor closes", async () => {
    const partial = "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ";
    const partialBody = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{";
    const requests = [partial, partialBody, "", "GARBAGE\r\n\r\n", `GET / HTTP/1.1\r\nX-Pad: ${"a".repeat(20_000)}\r\n\r\n`];
    const all = accepted(server, requests.length * 10);
    for (const bytes of requests) for (let i = 0; i < 10; i++) clients.push(await silentClient(server, bytes));
    await all;
    expect(await connectionsFallTo(server, 0, 15_000)).toBe(0);
  });
});
