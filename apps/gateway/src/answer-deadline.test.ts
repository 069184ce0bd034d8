import { Agent, createServer, request, type Server } from "node:http";
import type net from "node:net";
import type { AddressInfo } from "node:net";
import { cutAnswersNotTaken } from "./answer-deadline";
import { accepted, connectionsFallTo, openConnections, silentClient } from "./open-connections.test-support";

// Larger than what the kernel's socket buffers take on loopback, so a client that does not read
// leaves the server's write pending.
const large = JSON.stringify({ pad: "x".repeat(16 * 1024 * 1024) });

// Long enough for a loaded machine to write `large` to a client that reads it.
const DEADLINE_MS = 2_000;

describe("cutAnswersNotTaken", () => {
  let server: Server;
  const clients: net.Socket[] = [];
  beforeAll(async () => {
    server = createServer();
    cutAnswersNotTaken(server, DEADLINE_MS);
    server.on("request", (req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(req.url === "/large" ? large : "{}");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  });
  afterAll(async () => {
    for (const c of clients) c.destroy();
    await new Promise((r) => server.close(r));
  });

  it("keeps the connection of a client that takes its answers", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const { port } = server.address() as AddressInfo;
    const get = (path: string) =>
      new Promise<number>((resolve, reject) => {
        request({ host: "127.0.0.1", port, path, agent }, (res) => {
          let length = 0;
          res.on("data", (d: Buffer) => (length += d.length));
          res.on("end", () => resolve(length));
          res.on("aborted", () => reject(new Error(`the answer to ${path} was cut after ${length} bytes`)));
        })
          .on("error", reject)
          .end();
      });
    let connections = 0;
    const count = () => connections++;
    server.on("connection", count);
    expect(await get("/large")).toBe(large.length);
    // Past the deadline: a timer left behind by the first answer would cut the connection here.
    await new Promise((r) => setTimeout(r, DEADLINE_MS + 500));
    expect(await get("/")).toBe(2);
    expect(connections).toBe(1);
    expect(await openConnections(server)).toBe(1);
    server.off("connection", count);
    agent.destroy();
  });

  it.each([
    ["one request whose answer does not fit in the socket buffers", "GET /large HTTP/1.1\r\nHost: x\r\n\r\n"],
    ["pipelined requests", "GET / HTTP/1.1\r\nHost: x\r\n\r\n".repeat(1000) + "GET /large HTTP/1.1\r\nHost: x\r\n\r\n"],
    ["a request that asks to close the connection", "GET /large HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"],
  ])("cuts a client that sends %s and never reads", async (_name, bytes) => {
    const all = accepted(server, 5);
    for (let i = 0; i < 5; i++) clients.push(await silentClient(server, bytes));
    await all;
    expect(await connectionsFallTo(server, 0, 15_000)).toBe(0);
  });
});
