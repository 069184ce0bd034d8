import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  InternalServerError,
  NotFoundError,
  RateLimitedError,
  RelayClient,
  RelayError,
  RelayNetworkError,
  ServiceUnavailableError,
  UnauthorizedError,
  UnprocessableError,
} from "./index";

/** A fetch that answers from a script and records each request; `null` in the script: the connection fails. */
function scriptedFetch(script: ({ status: number; body?: unknown; headers?: Record<string, string> } | null)[]) {
  const requests: { url: string; method: string; headers: Record<string, string>; body: unknown }[] = [];
  const fetch = (async (input: URL | string, init: RequestInit = {}) => {
    requests.push({
      url: String(input),
      method: init.method ?? "GET",
      headers: init.headers as Record<string, string>,
      body: init.body === undefined ? undefined : JSON.parse(String(init.body)),
    });
    const next = script.shift();
    if (next === undefined) throw new Error("script ran out");
    if (next === null) throw new TypeError("fetch failed");
    return new Response(next.body === undefined ? "" : JSON.stringify(next.body), { status: next.status, headers: next.headers });
  }) as typeof globalThis.fetch;
  return { fetch, requests };
}

const PROJECT = "6f1d7c2e-3f0a-4a7e-9d55-0c1e2b3a4d5f";
const make = (script: Parameters<typeof scriptedFetch>[0], retry = {}) => {
  const { fetch, requests } = scriptedFetch(script);
  const waits: number[] = [];
  const client = new RelayClient({
    baseUrl: "http://relay.test/",
    apiKey: "key",
    projectId: PROJECT,
    fetch,
    retry,
    sleep: async (ms) => void waits.push(ms),
  });
  return { client, requests, waits };
};
const call = { chainId: 31337, contractAddress: "0x0000000000000000000000000000000000000001", functionSignature: "ping()" };

describe("RelayClient", () => {
  it("sends the API key, the project and a generated requestId, and returns the answer", async () => {
    const { client, requests } = make([{ status: 200, body: { transactionId: "t" } }]);
    await expect(client.sendTransaction(call)).resolves.toEqual({ transactionId: "t" });
    expect(requests[0]!.url).toBe("http://relay.test/transact/sendTransaction");
    expect(requests[0]!.headers.authorization).toBe("Bearer key");
    expect(requests[0]!.body).toMatchObject({ ...call, projectId: PROJECT, requestId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  });

  it("maps each status to its error class, with status, message, body and kind", async () => {
    const cases: [number, new (...args: never[]) => RelayError, string][] = [
      [400, BadRequestError, "bad_request"],
      [401, UnauthorizedError, "unauthorized"],
      [403, ForbiddenError, "forbidden"],
      [404, NotFoundError, "not_found"],
      [409, ConflictError, "conflict"],
      [422, UnprocessableError, "unprocessable"],
      [500, InternalServerError, "internal"],
    ];
    for (const [status, Class, kind] of cases) {
      const { client } = make([{ status, body: { message: `m${status}` } }]);
      const error = await client.getTransaction("t").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Class);
      expect(error).toBeInstanceOf(RelayError);
      expect(error).toMatchObject({ status, message: `m${status}`, body: { message: `m${status}` }, kind });
    }
  });

  it("retries a 429 after the Retry-After it was given, for any call, then succeeds", async () => {
    const { client, requests, waits } = make([
      { status: 429, body: { message: "slow down" }, headers: { "retry-after": "2" } },
      { status: 200, body: { projectId: PROJECT, walletAddress: "0xabc" } },
    ]);
    await expect(client.createWallet({ chainId: 1 })).resolves.toMatchObject({ walletAddress: "0xabc" });
    expect(requests).toHaveLength(2);
    expect(waits).toEqual([2000]);
  });

  it("gives up after maxAttempts with a RateLimitedError carrying Retry-After", async () => {
    const limited = { status: 429, body: { message: "slow down" }, headers: { "retry-after": "1" } };
    const { client, requests } = make([limited, limited, limited], { maxAttempts: 3 });
    const error = await client.getTransactionStats().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(1000);
    expect(requests).toHaveLength(3);
  });

  it("stops when the next wait would pass maxElapsedMs", async () => {
    const limited = { status: 429, body: { message: "slow down" }, headers: { "retry-after": "20" } };
    const { client, requests } = make([limited, limited], { maxElapsedMs: 5000, maxDelayMs: 30_000 });
    await expect(client.getTransactionStats()).rejects.toBeInstanceOf(RateLimitedError);
    expect(requests).toHaveLength(1);
  });

  it("retries reads on 503 and on no answer, with growing back-off", async () => {
    const { client, requests, waits } = make([{ status: 503, body: { message: "down" } }, null, { status: 200, body: [] }], { baseDelayMs: 100 });
    await expect(client.listWallets()).resolves.toEqual([]);
    expect(requests).toHaveLength(3);
    expect(waits[0]).toBeLessThanOrEqual(100);
    expect(waits[1]).toBeLessThanOrEqual(200);
  });

  it("never repeats a call the relay could not recognise (toggle, wallet create, speed-up) after a 503 or a lost answer", async () => {
    for (const run of [
      (c: RelayClient) => c.toggleWalletIsActive("0x0000000000000000000000000000000000000001"),
      (c: RelayClient) => c.createWallet({ chainId: 1 }),
      (c: RelayClient) => c.speedUpTransaction("t"),
    ]) {
      const unavailable = make([{ status: 503, body: { message: "down" } }, { status: 200, body: {} }]);
      await expect(run(unavailable.client)).rejects.toBeInstanceOf(ServiceUnavailableError);
      expect(unavailable.requests).toHaveLength(1);
      const lost = make([null, { status: 200, body: {} }]);
      await expect(run(lost.client)).rejects.toBeInstanceOf(RelayNetworkError);
      expect(lost.requests).toHaveLength(1);
    }
  });

  it("repeats sendTransaction with the same requestId, and takes a 409 on the repeat as the first attempt having landed", async () => {
    const { client, requests } = make([null, { status: 409, body: { message: "requestId already used", transactionId: "x" } }]);
    const { transactionId } = await client.sendTransaction(call);
    expect(requests).toHaveLength(2);
    const sentIds = requests.map((r) => (r.body as { requestId: string }).requestId);
    expect(sentIds[0]).toBe(sentIds[1]);
    expect(transactionId).toBe(sentIds[0]);
  });

  it("keeps a 409 an error when the only earlier attempt was refused by the rate limit (nothing of ours landed)", async () => {
    const { client, requests } = make([
      { status: 429, body: { message: "slow down" }, headers: { "retry-after": "0" } },
      { status: 409, body: { message: "requestId already used", transactionId: "x" } },
    ]);
    await expect(client.sendTransaction({ ...call, requestId: "0b1e7c2e-3f0a-4a7e-9d55-0c1e2b3a4d5f" })).rejects.toBeInstanceOf(ConflictError);
    expect(requests).toHaveLength(2);
  });

  it("answers a 409 on the first attempt as a ConflictError naming the existing transaction", async () => {
    const requestId = "0b1e7c2e-3f0a-4a7e-9d55-0c1e2b3a4d5f";
    const { client } = make([{ status: 409, body: { message: "requestId already used", transactionId: requestId } }]);
    const error = await client.sendTransaction({ ...call, requestId }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as ConflictError).transactionId).toBe(requestId);
  });

  it("repeats personalSign and signTypedData with the same generated signatureId", async () => {
    const sign = make([{ status: 503, body: { message: "down" } }, { status: 200, body: { signature: "0x" } }]);
    await sign.client.personalSign({ signerAddress: "0x0000000000000000000000000000000000000001", message: "hi" });
    const ids = sign.requests.map((r) => (r.body as { signatureId: string }).signatureId);
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(ids[1]).toBe(ids[0]);
    const typed = make([null, { status: 200, body: { signature: "0x" } }]);
    await typed.client.signTypedData({ signerAddress: "0x0000000000000000000000000000000000000001", domain: { name: "x" }, types: { M: [{ name: "a", type: "uint256" }] }, primaryType: "M", message: { a: 1 } });
    expect((typed.requests[1]!.body as { signatureId: string }).signatureId).toBe((typed.requests[0]!.body as { signatureId: string }).signatureId);
  });

  it("puts queries in the URL: arrays joined for the list, repeated for attempts, dates as ISO", async () => {
    const { client, requests } = make([{ status: 200, body: {} }, { status: 200, body: {} }]);
    await client.listTransactions({ status: ["PENDING", "PAUSED"], createdAfter: new Date("2026-01-01T00:00:00Z"), limit: 5 });
    await client.listAttempts({ status: ["PENDING", "CONFIRMED"], reverted: false });
    expect(requests[0]!.url).toBe(`http://relay.test/transact/project/${PROJECT}/transactions?createdAfter=2026-01-01T00%3A00%3A00.000Z&limit=5&status=PENDING%2CPAUSED`);
    expect(requests[1]!.url).toBe(`http://relay.test/wallet/project/${PROJECT}/transactions?status=PENDING&status=CONFIRMED&reverted=false`);
  });

  it("refuses a call without a project id before sending it", async () => {
    const client = new RelayClient({ baseUrl: "http://relay.test", apiKey: "k", fetch: (() => Promise.reject(new Error("sent"))) as typeof fetch });
    await expect(client.getTransactionStats()).rejects.toThrow("projectId is required");
  });
});
