import express from "express";
import net from "node:net";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { createLogger } from "@relay/core";
import { createHttpServer } from "./http-server";
import { errorHandler } from "./middleware/errors";
import { requireHost } from "./middleware/require-host";

function exchange(server: Server, bytes: string): Promise<string> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.end(bytes));
    let text = "";
    socket.on("data", (d: Buffer) => (text += d.toString("utf8")));
    socket.on("end", () => resolve(text));
    socket.on("error", reject);
  });
}

describe("the gateway's HTTP server", () => {
  let server: Server;
  beforeAll(async () => {
    const app = express();
    app.use(requireHost);
    app.get("/", (_req, res) => {
      res.json({ ok: true });
    });
    app.use(errorHandler(createLogger({ name: "test", level: "silent" })));
    server = createHttpServer(app);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  });
  afterAll(() => new Promise((r) => server.close(r)));

  it("answers an HTTP/1.1 request without Host with a JSON 400, not Node's empty one", async () => {
    const answer = await exchange(server, "GET / HTTP/1.1\r\nConnection: close\r\n\r\n");
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toMatch(/content-type: application\/json/i);
    expect(answer).toContain('{"message":"HTTP/1.1 requests must carry a Host header"}');
  });

  it("serves requests with Host, and HTTP/1.0 ones without", async () => {
    expect(await exchange(server, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")).toMatch(/^HTTP\/1\.1 200 [\s\S]*\{"ok":true\}$/);
    expect(await exchange(server, "GET / HTTP/1.0\r\n\r\n")).toMatch(/^HTTP\/1\.1 200 [\s\S]*\{"ok":true\}$/);
  });

  it("answers what the parser refuses as JSON", async () => {
    expect(await exchange(server, "GARBAGE\r\n\r\n")).toMatch(/^HTTP\/1\.1 400 [\s\S]*"message":"Malformed HTTP request/);
  });
});
