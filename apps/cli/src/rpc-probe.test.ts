import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fetchChainId } from "./rpc-probe";

describe("fetchChainId", () => {
  let server: Server;
  let port: number;
  const seen: IncomingHttpHeaders[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.headers);
      req.resume();
      req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end('{"jsonrpc":"2.0","id":1,"result":"0x7a69"}'));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  it("sends a URL's credentials as Basic authentication, as the workers' client does (fetch refuses them in the URL)", async () => {
    expect(await fetchChainId(`http://alice:S3cr%40t@127.0.0.1:${port}/v3/PROVIDERKEY`)).toBe(31337n);
    expect(seen.at(-1)?.authorization).toBe(`Basic ${Buffer.from("alice:S3cr@t").toString("base64")}`);
  });

  it("names an endpoint that does not answer without its credentials or path", async () => {
    const other = createServer();
    await new Promise<void>((r) => other.listen(0, "127.0.0.1", () => r()));
    const closed = (other.address() as AddressInfo).port;
    await new Promise((r) => other.close(r)); // nothing listens there now
    const probe = fetchChainId(`http://alice:S3cr3tPassw0rd@127.0.0.1:${closed}/v3/PROVIDERKEY`, 1000);
    await expect(probe).rejects.toThrow(/^RPC http:\/\/127\.0\.0\.1:\d+\/… did not answer eth_chainId/);
    const message = await probe.catch((e: Error) => `${e.message} ${String(e.cause)}`);
    expect(message).not.toMatch(/S3cr3tPassw0rd|PROVIDERKEY|alice/);
  });
});
