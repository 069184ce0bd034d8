import express from "express";
import type { AddressInfo } from "node:net";
import { captureLogs } from "../../test/harness";
import { requestLog } from "./request-log";

/** One request through requestLog with this `trust proxy` setting; the logged client address. */
async function loggedAddress(trustProxy: boolean | number | string, forwardedFor: string): Promise<unknown> {
  const { logger, lines } = captureLogs();
  const app = express();
  app.set("trust proxy", trustProxy);
  app.use(requestLog(logger));
  app.get("/", (_req, res) => void res.json({}));
  const server = app.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  try {
    await (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { headers: { "x-forwarded-for": forwardedFor } })).json();
    for (let i = 0; i < 50 && lines.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    return (JSON.parse(lines[0]!) as { req: { remoteAddress?: unknown } }).req.remoteAddress;
  } finally {
    await new Promise((r) => server.close(r));
  }
}

describe("requestLog", () => {
  it("logs the client address as TRUST_PROXY lets the proxies in front tell it", async () => {
    // The proxy in front is on loopback: trusted by default, so the address it forwards is the client's.
    expect(await loggedAddress("loopback", "203.0.113.7")).toBe("203.0.113.7");
    // One hop trusted: the last address the proxy added.
    expect(await loggedAddress(1, "198.51.100.1, 203.0.113.7")).toBe("203.0.113.7");
    // Nothing trusted: the forwarded header is a client's claim, the peer is what counts.
    expect(await loggedAddress(false, "203.0.113.7")).toBe("127.0.0.1");
  });
});
