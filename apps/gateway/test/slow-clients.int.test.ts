import { Agent, request } from "node:http";
import type net from "node:net";
import type { AddressInfo } from "node:net";
import { accepted, connectionsFallTo, openConnections, silentClient } from "../src/open-connections.test-support";
import { startHarness, type Harness } from "./harness";

/** GET /health over one keep-alive connection, again and again, until stopped: what it got. */
function probeHealth(h: Harness) {
  const { port } = h.server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const answers: (number | string)[] = [];
  let stopped = false;
  const once = () =>
    new Promise<number | string>((resolve) => {
      request({ host: "127.0.0.1", port, path: "/health", agent, timeout: 10_000 }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      })
        .on("timeout", function (this: { destroy(): void }) {
          this.destroy();
        })
        .on("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message))
        .end();
    });
  const loop = (async () => {
    while (!stopped) {
      answers.push(await once());
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    answers,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await loop;
      agent.destroy();
    },
  };
}

describe("clients that hold connections without finishing a request", () => {
  let h: Harness;
  const clients: net.Socket[] = [];
  let probe: ReturnType<typeof probeHealth> | undefined;
  beforeAll(async () => {
    h = await startHarness("slow-clients", {}, { http: { headersMs: 1000, requestMs: 2000, checkIntervalMs: 200, answerMs: 1000 } });
  });
  afterAll(async () => {
    await probe?.stop();
    for (const c of clients) c.destroy();
    // Whatever the test found, the harness must be able to close.
    h.server.closeAllConnections();
    await h.close();
  });

  it("get their 408 or 400 and lose the connection, while other clients are served throughout", async () => {
    probe = probeHealth(h);
    while (probe.answers.length === 0) await new Promise((r) => setTimeout(r, 10));
    const before = await openConnections(h.server);

    const kinds = [
      // Headers sent slowly and never finished: 408 at headersTimeout.
      ...Array<string>(200).fill("GET /health HTTP/1.1\r\nHost: x\r\n"),
      // Connected and silent: 408 at headersTimeout.
      ...Array<string>(50).fill(""),
      // A malformed request line: 400 at once.
      ...Array<string>(50).fill("GET /health HTTP/1.1 GARBAGE\r\n\r\n"),
    ];
    const all = accepted(h.server, kinds.length);
    for (const bytes of kinds) {
      const client = await silentClient(h.server, bytes);
      if (bytes.startsWith("GET /health HTTP/1.1\r\n")) setTimeout(() => client.write("X-Slow: 1\r\n"), 200).unref();
      clients.push(client);
    }
    await all;
    const answeredWhileHeld = probe.answers.length;

    // Nothing the clients do ends their connections: they neither read nor close.
    expect(await connectionsFallTo(h.server, before, 20_000)).toBeLessThanOrEqual(before);
    await probe.stop();
    expect(probe.answers.length).toBeGreaterThan(answeredWhileHeld);
    expect(new Set(probe.answers)).toEqual(new Set([200]));
  });
});
