import { randomUUID } from "node:crypto";
import { createServer } from "node:net";
import { verifyMessage } from "ethers";
import { InternalServerError, RelayClient, ServiceUnavailableError, type RelayError } from "@relay/client";
import { addChain, createProjectFixture, deployRecorder, startAnvil, type AnvilInstance, type DeployedRecorder, type ProjectFixture } from "@relay/testing";
import { startHarness, type Harness } from "../support/harness";

/** A loopback port nothing listens on: connections to it are refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * @relay/client on the relay's own failures, caused for real: a 500 when the signing worker does
 * not answer within the gateway's deadline, a 503 when none of a chain's RPC endpoints answers a
 * read. The client does not repeat a 500, and repeats a 503 of a read with back-off until it heals.
 */
describe("@relay/client when the relay fails", () => {
  let h: Harness;
  let anvil: AnvilInstance;
  let recorder: DeployedRecorder;
  let project: ProjectFixture;
  /** Requests the client sent, by path. */
  let sent: string[];
  let waits: number[];
  let beforeSleep: (() => Promise<void>) | undefined;
  const client = (retry = {}) =>
    new RelayClient({
      baseUrl: h.baseUrl,
      apiKey: project.apiKey,
      projectId: project.projectId,
      retry: { baseDelayMs: 50, ...retry },
      fetch: (async (input: URL | string | Request, init?: RequestInit) => {
        sent.push(new URL(String(input)).pathname);
        return fetch(input, init);
      }) as typeof fetch,
      // Waits are recorded (and kept short); a test may act on the relay while the client waits.
      sleep: async (ms) => {
        waits.push(ms);
        await beforeSleep?.();
      },
    });
  const caught = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as RelayError);

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 18_941, port: 18_941 });
    recorder = await deployRecorder(anvil.rpcUrl);
    h = await startHarness("client-failures", { signTimeoutMs: 1000, callTimeoutMs: 1000 });
    project = await createProjectFixture(h.db, h.kek);
  });
  beforeEach(() => {
    sent = [];
    waits = [];
    beforeSleep = undefined;
  });
  afterAll(async () => {
    await h?.close();
    recorder?.provider.destroy();
    await anvil?.stop();
  });

  it("throws InternalServerError, once, when the signing worker does not sign within the deadline; the same signatureId signs once it is back", async () => {
    await h.stopWorker();
    const signatureId = randomUUID();
    const signer = project.wallets[0]!.address;
    let error: RelayError | undefined;
    try {
      error = await caught(client().personalSign({ signerAddress: signer, message: "late", signatureId }));
    } finally {
      await h.startWorker();
    }
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toMatchObject({ status: 500, kind: "internal" });
    expect(error!.message).toContain("Retry with the same signatureId");
    // A 500 is not repeated: the relay may have done part of the work.
    expect(sent).toHaveLength(1);
    expect(waits).toEqual([]);

    const signed = await client().personalSign({ signerAddress: signer, message: "late", signatureId });
    expect(signed.signatureId).toBe(signatureId);
    expect(verifyMessage("late", signed.signature)).toBe(signer);
  });

  it("repeats a read the relay answers 503 (no RPC endpoint of the chain answers) with back-off, and returns its answer once the chain answers", async () => {
    await addChain(h.db, anvil);
    const setRpc = (url: string) => h.db.chain.update({ where: { chainId: BigInt(anvil.chainId) }, data: { rpcUrls: [url] } });
    const read = { chainId: anvil.chainId, contractAddress: recorder.address, functionSignature: "totalSpent() view returns (uint256)" };
    await setRpc(`http://127.0.0.1:${await closedPort()}`);

    // Down throughout: every attempt is a 503, and the last one is thrown.
    const error = await caught(client({ maxAttempts: 3 }).call(read));
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toMatchObject({ status: 503, kind: "service_unavailable" });
    expect(error!.message).toContain("retry later");
    expect(sent).toEqual(["/transact/call", "/transact/call", "/transact/call"]);
    // The relay sends no Retry-After with this 503: exponential back-off with full jitter.
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeLessThanOrEqual(50);
    expect(waits[1]).toBeLessThanOrEqual(100);

    // Down for the first attempt, back (an operator fixed the chain's RPC URL) while the client waits.
    sent = [];
    waits = [];
    beforeSleep = () => setRpc(anvil.rpcUrl).then(() => undefined);
    await expect(client({ maxAttempts: 3 }).call(read)).resolves.toBe("0");
    expect(sent).toHaveLength(2);
    expect(waits).toHaveLength(1);
  });
});
