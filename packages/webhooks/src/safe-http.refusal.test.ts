import { fixedLookup, forbidSocketConnects, startLocalServer, type LocalServer } from "./local-network.test-support";
import { createSafeHttpClient } from "./safe-http";

/**
 * With private networks not allowed, every non-public destination is refused before a connection
 * exists. Loopback servers count the connections they accept (and must stay at 0); IP literals
 * elsewhere are tried with socket connects forbidden, so even a bug could not send a packet.
 */
let v4: LocalServer;
let v6: LocalServer;
beforeAll(async () => {
  v4 = await startLocalServer((_req, res) => res.end("reached"));
  v6 = await startLocalServer((_req, res) => res.end("reached"), "::1");
});
afterAll(async () => {
  await Promise.all([v4.close(), v6.close()]);
});

const strict = createSafeHttpClient({ allowPrivateNetworks: false });

describe("safe HTTP client, private networks refused", () => {
  it("refuses private and special IP literals without opening a socket", async () => {
    const urls = [
      `http://127.0.0.1:${v4.port}/`,
      `http://[::1]:${v6.port}/`,
      `http://[::ffff:127.0.0.1]:${v4.port}/`,
      `https://127.0.0.1:${v4.port}/`,
      // 127.0.0.1 in decimal and hex: the URL parser normalises them to the dotted form.
      `http://2130706433:${v4.port}/`,
      `http://0x7f000001:${v4.port}/`,
      `http://0.0.0.0:${v4.port}/`,
      "http://10.0.0.1/",
      "http://169.254.169.254/latest/meta-data/",
      "http://[fe80::1]/",
      "http://[fd00::1]/",
      "http://100.64.0.1/",
      "http://224.0.0.1/",
      "http://255.255.255.255/",
      "http://[64:ff9b::a00:1]/",
      "http://[::7f00:1]/",
    ];
    const guard = forbidSocketConnects();
    try {
      for (const url of urls) {
        const result = await strict.post(url, "{}");
        expect({ url, ...result }).toMatchObject({ url, status: 0, error: "refused-address" });
      }
      expect(guard.attempts()).toBe(0);
    } finally {
      guard.restore();
    }
    expect(v4.connections + v6.connections).toBe(0);
  });

  it.each([
    ["127.0.0.1", "http"],
    ["127.0.0.1", "https"],
    ["::1", "http"],
    ["::ffff:127.0.0.1", "http"],
  ])("refuses a host name that resolves to %s (%s) at connect time, before connecting", async (address, scheme) => {
    const names: string[] = [];
    const client = createSafeHttpClient({ allowPrivateNetworks: false, lookup: fixedLookup([address], names) });
    const server = address === "::1" ? v6 : v4;
    const result = await client.post(`${scheme}://receiver.example:${server.port}/hook`, "{}");
    expect(result).toMatchObject({ status: 0, error: "refused-address", message: expect.stringMatching(/receiver\.example resolves to an address that is not public \(loopback\)$/) });
    expect((result as { message: string }).message).not.toContain(address);
    expect(names).toEqual(["receiver.example"]);
    expect(server.connections).toBe(0);
  });

  it("would have reached the same server with private networks allowed (the refusals above are not vacuous)", async () => {
    const before = v4.connections;
    const client = createSafeHttpClient({ allowPrivateNetworks: true, lookup: fixedLookup(["127.0.0.1"]) });
    expect(await client.post(`http://receiver.example:${v4.port}/`, "{}")).toMatchObject({ status: 200, body: "reached" });
    expect(v4.connections).toBe(before + 1);
  });
});
