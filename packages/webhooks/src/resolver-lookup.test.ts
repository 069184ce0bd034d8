import { pbkdf2 } from "node:crypto";
import type { LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import { startDnsServer, startLocalServer, type LocalDnsServer } from "./local-network.test-support";
import { resolverLookup } from "./resolver-lookup";
import { createSafeHttpClient } from "./safe-http";

/** The lookup called the way net.connect calls it. */
function resolve(lookup: LookupFunction, hostname: string, options: { all: boolean; family?: number }) {
  return new Promise<{ err: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number }>((done) =>
    lookup(hostname, options, (err, address, family) => done({ err, address, family })),
  );
}

/** Occupies every thread of libuv's pool (4 by default) for about `ms`, as long crypto or file work does. */
function busyThreadPool(ms: number): Promise<void> {
  const started = Date.now();
  // Calibrated: enough iterations that each call outlasts `ms` on this machine.
  const iterations = 2_000_000;
  return new Promise((done) => {
    let left = 4;
    for (let i = 0; i < 4; i++) {
      const spin = () =>
        pbkdf2("p", "s", iterations, 32, "sha256", () => {
          if (Date.now() - started < ms) return spin();
          if (--left === 0) done();
        });
      spin();
    }
  });
}

describe("resolverLookup", () => {
  let dns: LocalDnsServer;
  beforeAll(async () => {
    dns = await startDnsServer({ "receiver.test": ["127.0.0.1", "::1"], "v4only.test": ["127.0.0.2"] }, ["hangs.test"]);
  });
  afterAll(() => dns.close());

  const lookup = () => resolverLookup({ servers: [dns.address], queryTimeoutMs: 300, tries: 1 });

  it("answers a name's A and AAAA records, all of them or the first, and one family when asked", async () => {
    expect(await resolve(lookup(), "receiver.test", { all: true })).toEqual({
      err: null,
      address: [
        { address: "127.0.0.1", family: 4 },
        { address: "::1", family: 6 },
      ],
      family: undefined,
    });
    expect(await resolve(lookup(), "receiver.test", { all: false })).toEqual({ err: null, address: "127.0.0.1", family: 4 });
    expect(await resolve(lookup(), "receiver.test", { all: true, family: 6 })).toMatchObject({ address: [{ address: "::1", family: 6 }] });
    // No AAAA record: the A record alone, not an error.
    expect(await resolve(lookup(), "v4only.test", { all: true })).toMatchObject({ err: null, address: [{ address: "127.0.0.2", family: 4 }] });
  });

  it("reports an unknown name as ENOTFOUND and a server that never answers as ETIMEOUT", async () => {
    expect((await resolve(lookup(), "missing.test", { all: true })).err?.code).toBe("ENOTFOUND");
    expect((await resolve(lookup(), "hangs.test", { all: true })).err?.code).toBe("ETIMEOUT");
  });

  it("takes localhost as loopback without asking DNS, and an IP literal as itself", async () => {
    const before = dns.queries.length;
    expect(await resolve(lookup(), "localhost", { all: true })).toMatchObject({ address: [{ address: "127.0.0.1" }, { address: "::1" }] });
    expect(await resolve(lookup(), "api.LOCALHOST.", { all: false })).toMatchObject({ address: "127.0.0.1" });
    expect(await resolve(lookup(), "10.0.0.1", { all: false })).toMatchObject({ address: "10.0.0.1", family: 4 });
    expect(dns.queries.length).toBe(before);
  });

  it("does not wait for libuv's thread pool: with all its threads busy, a delivery to a name connects at once", async () => {
    const receiver = await startLocalServer((_req, res) => res.writeHead(200).end());
    const client = createSafeHttpClient({ allowPrivateNetworks: true, connectTimeoutMs: 1000, dnsServers: [dns.address] });
    try {
      const busy = busyThreadPool(3000);
      const [byName, byLocalhost] = await Promise.all([
        client.post(`http://receiver.test:${receiver.port}/hook`, "{}"),
        client.post(`http://localhost:${receiver.port}/hook`, "{}"),
      ]);
      expect(byName).toMatchObject({ status: 200 });
      expect(byLocalhost).toMatchObject({ status: 200 });
      await busy;
    } finally {
      client.close();
      await receiver.close();
    }
  });
});
