import { createServer, type AddressInfo } from "node:net";
import { closedPort, fixedLookup, forbidSocketConnects, startLocalServer, type LocalServer } from "./local-network.test-support";
import { createSafeHttpClient, type SafeHttpResult } from "./safe-http";

// Delivery behaviour against real servers on 127.0.0.1, with private networks allowed (as in tests
// of the worker). Refusals are in safe-http.refusal.test.ts.
const client = createSafeHttpClient({ allowPrivateNetworks: true });
const servers: LocalServer[] = [];
const serve = async (...args: Parameters<typeof startLocalServer>) => {
  const server = await startLocalServer(...args);
  servers.push(server);
  return server;
};
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const failureOf = (result: SafeHttpResult) => (result.error === undefined ? "answered" : result.error);

describe("safe HTTP client, private networks allowed", () => {
  it("POSTs the body with the given headers and returns a 2xx with its body", async () => {
    const server = await serve((_req, res) => res.writeHead(204).end());
    const ok = await serve((_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("thanks"));
    const body = JSON.stringify({ hello: "wörld" });
    const result = await client.post(`${server.origin}/hook?x=1`, body, { "webhook-id": "evt_1" });
    expect(result).toEqual({ status: 204, body: "", truncated: false, durationMs: expect.any(Number) });
    expect(server.requests).toEqual([
      {
        method: "POST",
        path: "/hook?x=1",
        body,
        headers: expect.objectContaining({
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(body)),
          "webhook-id": "evt_1",
          "user-agent": "relay-webhooks/1",
        }),
      },
    ]);
    expect(await client.post(ok.origin, "{}")).toMatchObject({ status: 200, body: "thanks", truncated: false });
  });

  it.each([500, 410, 404, 429])("returns a %d as that status, not as a failure", async (status) => {
    const server = await serve((_req, res) => res.writeHead(status).end(`status ${status}`));
    expect(await client.post(server.origin, "{}")).toMatchObject({ status, body: `status ${status}`, truncated: false });
  });

  it("does not follow a redirect: a 302 is just a non-2xx status", async () => {
    const server = await serve((req, res) => {
      if (req.url === "/hook") res.writeHead(302, { location: "/elsewhere" }).end();
      else res.writeHead(200).end("followed");
    });
    expect(await client.post(`${server.origin}/hook`, "{}")).toMatchObject({ status: 302, body: "" });
    expect(server.requests.map((r) => r.path)).toEqual(["/hook"]);
  });

  it("gives up on a server that never answers at the total time-out", async () => {
    const server = await serve(() => undefined);
    const result = await createSafeHttpClient({ allowPrivateNetworks: true, totalTimeoutMs: 300 }).post(server.origin, "{}");
    expect(result).toMatchObject({ status: 0, error: "timeout", message: "no response within 300 ms" });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(result.durationMs).toBeLessThan(2_000);
  });

  it("keeps the status of a receiver that answered but stalls in the body, marking the body cut", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-length": "100" });
      res.write("partial");
    });
    const result = await createSafeHttpClient({ allowPrivateNetworks: true, totalTimeoutMs: 300 }).post(server.origin, "{}");
    expect(result).toMatchObject({ status: 200, body: "partial", truncated: true });
  });

  it("answers a receiver that sends its status and then trickles the body a byte a second once the body time-out ends, and closes the connection", async () => {
    let cutBeforeItsEnd!: (cut: boolean) => void;
    const closed = new Promise<boolean>((r) => (cutBeforeItsEnd = r));
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-length": "60" });
      res.write("x"); // the status line and headers go out with the first byte
      const drip = setInterval(() => res.write("x"), 1000);
      res.on("close", () => {
        clearInterval(drip);
        cutBeforeItsEnd(!res.writableFinished);
      });
    });
    const trickled = createSafeHttpClient({ allowPrivateNetworks: true, totalTimeoutMs: 30_000, bodyTimeoutMs: 1500 });
    try {
      const started = performance.now();
      const result = await trickled.post(server.origin, "{}");
      // Well before the total time-out, however slowly the body comes.
      expect(performance.now() - started).toBeLessThan(15_000);
      expect(result).toMatchObject({ status: 200, truncated: true, body: expect.stringMatching(/^x+$/) });
      // When the receiver answered, not when the client stopped reading.
      expect(result.durationMs).toBeLessThan(1500);
      expect(await closed).toBe(true);
    } finally {
      trickled.close();
    }
  });

  it("reads at most 64 KiB of a huge response, then stops", async () => {
    // A response that never ends, and a client whose total time-out is beyond this test's: only a
    // client that stops reading at the limit (and closes the connection) answers at all.
    const server = await serve((_req, res) => {
      res.writeHead(500);
      const chunk = "x".repeat(16 * 1024);
      let open = true;
      const pump = () => {
        while (open && res.write(chunk));
        if (open) res.once("drain", pump);
      };
      res.on("error", () => undefined);
      res.on("close", () => (open = false));
      pump();
    });
    const patient = createSafeHttpClient({ allowPrivateNetworks: true, connectTimeoutMs: 5_000, totalTimeoutMs: 3_600_000 });
    try {
      const result = await patient.post(server.origin, "{}");
      expect(result).toMatchObject({ status: 500, truncated: true });
      expect(result.error === undefined && result.body.length).toBe(65_536);
    } finally {
      patient.close();
    }
  });

  it("does not call a body of exactly the limit truncated", async () => {
    const server = await serve((_req, res) => res.writeHead(200).end("y".repeat(1024)));
    const result = await createSafeHttpClient({ allowPrivateNetworks: true, maxResponseBytes: 1024 }).post(server.origin, "{}");
    expect(result).toMatchObject({ status: 200, truncated: false });
  });

  it("reports a closed port as connect-failed with status 0", async () => {
    const result = await client.post(`http://127.0.0.1:${await closedPort()}/`, "{}");
    expect(result).toMatchObject({ status: 0, error: "connect-failed", message: expect.stringContaining("ECONNREFUSED") });
  });

  it("reports a connection dropped before any answer as response-failed", async () => {
    const server = await serve((req) => req.socket.destroy());
    expect(failureOf(await client.post(server.origin, "{}"))).toBe("response-failed");
  });

  it("reports a failed TLS handshake as tls-failed (https to a plain HTTP server)", async () => {
    const server = await serve((_req, res) => res.end());
    expect(failureOf(await client.post(`https://127.0.0.1:${server.port}/`, "{}"))).toBe("tls-failed");
  });

  it("counts name resolution in the connect time-out, and reports resolver errors", async () => {
    const silent = createSafeHttpClient({ allowPrivateNetworks: true, connectTimeoutMs: 200, lookup: () => undefined });
    expect(await silent.post("http://receiver.example/", "{}")).toMatchObject({ status: 0, error: "timeout", message: "not connected within 200 ms" });
    const nxdomain = createSafeHttpClient({ allowPrivateNetworks: true, lookup: fixedLookup([]) });
    expect(await nxdomain.post("http://receiver.example/", "{}")).toMatchObject({ status: 0, error: "dns-failed" });
  });

  it("refuses malformed URLs, other schemes and credentials without opening a connection", async () => {
    const guard = forbidSocketConnects();
    try {
      for (const url of ["not a url", "/relative", "ftp://127.0.0.1/", "file:///etc/passwd", "http://user:pass@127.0.0.1/", "https://token@127.0.0.1/"]) {
        expect(await client.post(url, "{}")).toMatchObject({ status: 0, error: "bad-url" });
      }
      expect(guard.attempts()).toBe(0);
    } finally {
      guard.restore();
    }
  });
});

describe("safe HTTP client, kept-alive connections", () => {
  it("delivers to the same receiver over one connection, which the next delivery reuses", async () => {
    const server = await serve((_req, res) => res.writeHead(200).end("ok"));
    const local = createSafeHttpClient({ allowPrivateNetworks: true });
    try {
      for (let i = 0; i < 5; i++) expect(await local.post(`${server.origin}/hook`, `{"n":${i}}`)).toMatchObject({ status: 200, body: "ok" });
      expect(server.requests).toHaveLength(5);
      expect(server.connections).toBe(1);
    } finally {
      local.close();
    }
  });

  it("lets a POST in flight finish when the client is closed (a delivery handed back at shutdown)", async () => {
    let answer: (() => void) | undefined;
    const server = await serve((req, res) => {
      if (req.url === "/slow") answer = () => res.writeHead(200).end("late");
      else res.writeHead(200).end("ok");
    });
    const local = createSafeHttpClient({ allowPrivateNetworks: true });
    expect(await local.post(`${server.origin}/idle`, "{}")).toMatchObject({ status: 200 });
    const inFlight = local.post(`${server.origin}/slow`, "{}");
    for (let i = 0; i < 100 && !answer; i++) await new Promise((r) => setTimeout(r, 10));
    local.close();
    answer!();
    expect(await inFlight).toMatchObject({ status: 200, body: "late" });
  });

  it("does not keep a connection whose response it stopped reading at the size limit", async () => {
    const server = await serve((_req, res) => res.writeHead(200).end("x".repeat(5000)));
    const local = createSafeHttpClient({ allowPrivateNetworks: true, maxResponseBytes: 1000 });
    try {
      expect(await local.post(server.origin, "{}")).toMatchObject({ status: 200, truncated: true });
      expect(await local.post(server.origin, "{}")).toMatchObject({ status: 200, truncated: true });
      expect(server.connections).toBe(2);
    } finally {
      local.close();
    }
  });

  it("sends again on a new connection when a kept one was closed by the receiver as it was reused", async () => {
    // A receiver that answers the first request on each connection and drops the connection on
    // the second, without an answer: what a server closing an idle connection looks like.
    const received: string[] = [];
    let connections = 0;
    const server = createServer((socket) => {
      connections += 1;
      let buffered = "";
      let answered = 0;
      socket.on("error", () => undefined);
      socket.on("data", (chunk) => {
        buffered += chunk.toString("utf8");
        const end = buffered.indexOf("\r\n\r\n");
        if (end < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(buffered)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        const body = buffered.slice(end + 4, end + 4 + length);
        buffered = buffered.slice(end + 4 + length);
        if (answered++ > 0) return void socket.destroy();
        received.push(body);
        socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok");
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const local = createSafeHttpClient({ allowPrivateNetworks: true });
    try {
      expect(await local.post(origin, '{"n":1}')).toMatchObject({ status: 200, body: "ok" });
      expect(await local.post(origin, '{"n":2}')).toMatchObject({ status: 200, body: "ok" });
      expect(received).toEqual(['{"n":1}', '{"n":2}']);
      expect(connections).toBe(2);
    } finally {
      local.close();
      server.close();
    }
  });

  it("sends again within what is left of the attempt's total time-out, not a second one", async () => {
    // The kept connection is dropped 700 ms into the second request; a new one is never answered.
    let connections = 0;
    const server = createServer((socket) => {
      const first = ++connections === 1;
      let requests = 0;
      socket.on("error", () => undefined);
      socket.on("data", (chunk) => {
        if (!chunk.toString("utf8").includes("\r\n\r\n")) return;
        if (!first) return; // never answered
        if (requests++ === 0) return void socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok");
        setTimeout(() => socket.destroy(), 700);
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const local = createSafeHttpClient({ allowPrivateNetworks: true, totalTimeoutMs: 1000 });
    try {
      expect(await local.post(origin, "{}")).toMatchObject({ status: 200 });
      const result = await local.post(origin, "{}");
      expect(result).toMatchObject({ status: 0, error: "timeout" });
      expect(connections).toBe(2);
      // 1000 ms in all (the retry had the 300 ms left), not 700 + another 1000.
      expect(result.durationMs).toBeLessThan(1500);
    } finally {
      local.close();
      server.close();
    }
  });
});

