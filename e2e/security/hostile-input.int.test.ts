import fc from "fast-check";
import { verifyMessage } from "ethers";
import { createChainRepository } from "@relay/db";
import { createProjectFixture, createTestDatabase, type ProjectFixture, type TestDatabase } from "@relay/testing";
import { post, startHarness, type Harness } from "../support/harness";
import { checkAnswer } from "./hostile/checks";
import { endpoints, type World } from "./hostile/endpoints";
import { keepAliveClient, parseRawAnswer, rawRequest } from "./hostile/http-client";
import { rawRequests } from "./hostile/raw-requests";

/**
 * Property-based hostile input over every route of the real gateway, through real HTTP: random
 * and malformed bodies, wrong types, huge and deeply nested values, unicode, bad ids, addresses
 * and function signatures, header and path abuse (see ./hostile/). Fixed seed; FC_SEED=<n>
 * replays another, and a failure prints the seed and the shrunk request.
 */
const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : 20_261_122;
const CHAIN_ID = 31_901;
const BATCH = 10;
const RAW_RUNS = 300;

const placeholder: World = {
  chainId: CHAIN_ID,
  own: { projectId: "p", apiKey: "rk_a_b", wallet: "0x", signatureIds: ["s"], transactionIds: ["t"], callbackIds: ["c"] },
  other: { projectId: "q", apiKey: "rk_a_b", wallet: "0x", signatureIds: ["s"], transactionIds: ["t"], callbackIds: ["c"] },
};
const ROUTES = endpoints(placeholder).map((e) => ({ name: e.name, runs: e.runs }));

describe("hostile input to every endpoint", () => {
  let h: Harness;
  let database: TestDatabase;
  let world: World;
  let client: ReturnType<typeof keepAliveClient>;
  const accepted = { signature: new Set<string>(), transaction: new Set<string>(), event_callback: new Set<string>(), wallet: new Set<string>() };

  const count = async (table: "signature" | "transaction" | "event_callback" | "project" | "wallet" | "api_key", where = "") =>
    Number((await h.db.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM "${table}" ${where}`))[0]!.n);
  const counts = async () => ({
    signature: await count("signature"),
    transaction: await count("transaction"),
    event_callback: await count("event_callback"),
    project: await count("project"),
    wallet: await count("wallet"),
    api_key: await count("api_key"),
  });
  let before: Awaited<ReturnType<typeof counts>>;

  /** Records of a project for the routes that read by id: a signature, a transaction, two registrations. */
  const seed = async (p: ProjectFixture): Promise<World["own"]> => {
    const signature = await post(h.baseUrl, `/wallet/project/${p.projectId}/personalSign`, { signerAddress: p.wallets[0]!.address, message: "seed" }, p.apiKey);
    const tx = await post(h.baseUrl, "/transact/sendTransaction", { projectId: p.projectId, chainId: CHAIN_ID, contractAddress: p.wallets[0]!.address, functionSignature: "ping()" }, p.apiKey);
    const callbacks = await Promise.all(
      ["https://example.com/a", "https://example.com/b"].map((url) => post(h.baseUrl, `/webhook/project/${p.projectId}/eventCallback`, { callbackURL: url, eventType: "WalletBalanceLow" }, p.apiKey)),
    );
    for (const r of [signature, tx, ...callbacks]) expect(r.status).toBe(200);
    return {
      projectId: p.projectId,
      apiKey: p.apiKey,
      wallet: p.wallets[0]!.address,
      signatureIds: [signature.body.signatureId as string],
      transactionIds: [tx.body.transactionId as string],
      callbackIds: callbacks.map((c) => c.body.id as string),
    };
  };

  beforeAll(async () => {
    // A database of its own: the row counts below must see only this test's requests.
    database = await createTestDatabase({ migrate: true });
    h = await startHarness("hostile", { authCacheTtlMs: 60_000 }, { databaseUrl: database.url });
    await createChainRepository(h.db).upsert({ chainId: BigInt(CHAIN_ID), name: "fuzz", rpcUrls: ["http://127.0.0.1:9"], confirmations: 1, lowBalanceThresholdWei: 0n, blockTimeMs: 1000, stuckAfterSeconds: 30 });
    const own = await seed(await createProjectFixture(h.db, h.kek));
    const other = await seed(await createProjectFixture(h.db, h.kek));
    world = { chainId: CHAIN_ID, own, other };
    client = keepAliveClient(h.baseUrl, BATCH);
    before = await counts();
  });
  afterAll(async () => {
    client?.close();
    await h?.close();
    await database?.drop();
  });

  /** What a 200 created, to compare with the rows afterwards. */
  const remember = (name: string, status: number, text: string) => {
    if (status !== 200) return;
    const body = JSON.parse(text) as Record<string, string>;
    if (name === "POST personalSign") {
      expect(verifyMessage(body.message!, body.signature!)).toBe(body.signerAddress);
      accepted.signature.add(body.signatureId!);
    }
    if (name === "POST signTypedData") accepted.signature.add(body.signatureId!);
    if (name === "POST sendTransaction") accepted.transaction.add(body.transactionId!);
    if (name === "POST eventCallback") accepted.event_callback.add(body.id!);
    if (name === "POST createWallet") accepted.wallet.add(body.walletAddress!);
  };

  it.each(ROUTES)("$name: $runs cases, no 5xx, allowed statuses, JSON errors with a message", async ({ name, runs }) => {
    const endpoint = endpoints(world).find((e) => e.name === name)!;
    // Cases go in batches sent at once, so waits on Postgres and Redis overlap; a failure names its request.
    await fc.assert(
      fc.asyncProperty(fc.array(endpoint.cases, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
        const answers = await Promise.all(batch.map((c) => client.send(c)));
        batch.forEach((c, i) => {
          checkAnswer(endpoint, c, answers[i]!);
          remember(name, answers[i]!.status, answers[i]!.text);
        });
      }),
      { numRuns: runs / BATCH, seed: SEED },
    );
  }, 180_000);

  it(`malformed HTTP on the socket: ${RAW_RUNS} cases, each answered, never 5xx, errors as JSON with a message`, async () => {
    const outcomes = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(fc.array(rawRequests({ projectId: world.own.projectId, apiKey: world.own.apiKey, wallet: world.own.wallet }), { minLength: BATCH, maxLength: BATCH }), async (batch) => {
        const answers = await Promise.all(batch.map((c) => rawRequest(h.baseUrl, c.bytes, { halfClose: c.truncated })));
        batch.forEach((c, i) => {
          const text = answers[i]!;
          const answer = parseRawAnswer(text);
          const outcome = String(answer.status);
          outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
          if (text === "") throw new Error(`no answer before the connection closed\n${c.description}`);
          if (answer.status === 200 && /"signatureId"/.test(answer.text)) accepted.signature.add((JSON.parse(answer.text) as { signatureId: string }).signatureId);
          const fail = (why: string) => {
            throw new Error(`${why}\n${c.description}\n→ ${text.slice(0, 300)}`);
          };
          if (!(answer.status >= 200 && answer.status < 500)) fail(`status ${answer.status}`);
          if (answer.status >= 400) {
            if (!String(answer.headers["content-type"]).startsWith("application/json")) fail("error answer is not JSON");
            let message: unknown;
            try {
              message = (JSON.parse(answer.text) as { message?: unknown }).message;
            } catch {
              fail("error answer does not parse as JSON");
            }
            if (typeof message !== "string" || message.length === 0) fail("error answer has no message");
          }
        });
      }),
      { numRuns: RAW_RUNS / BATCH, seed: SEED },
    );
    // Both kinds were sent: requests the gateway served and requests it refused.
    expect(outcomes.get("200")).toBeGreaterThan(0);
    expect(outcomes.get("400")).toBeGreaterThan(0);
  });

  it("authenticates a request whose target is in absolute form (POST http://host/wallet/… HTTP/1.1) like any other: 401 without a key", async () => {
    for (const target of [`http://127.0.0.1/wallet/project/${world.own.projectId}/personalSign`, "HTTP://127.0.0.1/transact/sendTransaction"]) {
      const body = JSON.stringify({ signerAddress: world.own.wallet, message: "absolute" });
      const text = await rawRequest(h.baseUrl, `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`, { halfClose: false });
      const answer = parseRawAnswer(text);
      expect([target, answer.status]).toEqual([target, 401]);
    }
  });

  it("refuses with a 400 calldata no node would take (nested arrays of zeros in a 40 KB body), giving its size and the limit, and stores nothing", async () => {
    const transactions = await count("transaction");
    const body = {
      projectId: world.own.projectId,
      chainId: CHAIN_ID,
      contractAddress: world.own.wallet,
      functionSignature: "f(uint256[][] grid)",
      args: { grid: new Array(9_999).fill([0]) },
    };
    expect(JSON.stringify(body).length).toBeLessThan(41_000);
    const res = await post(h.baseUrl, "/transact/sendTransaction", body, world.own.apiKey);
    expect([res.status, res.body.message]).toEqual([
      400,
      "args encode to 959972 bytes of calldata; at most 130816 are accepted, as nodes refuse a signed transaction over 131072 bytes (128 KiB); send the data in several smaller calls",
    ]);
    expect(await count("transaction")).toBe(transactions);
  });

  it("allows each API route only statuses /openapi.json documents for it (431 comes from Node, before any route)", async () => {
    const doc = JSON.parse((await client.send({ method: "GET", path: "/openapi.json" })).text) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    const documented = endpoints(world).filter((e) => e.documented);
    // Every API route of the document is fuzzed (all but the probes, which are not under a key).
    const apiRoutes = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`));
    expect(documented.map((e) => `${e.documented!.method} ${e.documented!.path}`).sort()).toEqual(apiRoutes.filter((r) => !/^get \/(health|ready)$/.test(r)).sort());
    for (const e of documented) {
      const responses = doc.paths[e.documented!.path]?.[e.documented!.method]?.responses ?? {};
      expect({ route: e.name, undocumented: e.allowed.filter((s) => s !== 431 && !(String(s) in responses)) }).toEqual({ route: e.name, undocumented: [] });
    }
  });

  it(`leaves the gateway healthy and no record half-written after ${ROUTES.reduce((n, r) => n + r.runs, RAW_RUNS)} cases`, async () => {
    expect((await client.send({ method: "GET", path: "/health" })).status).toBe(200);
    expect((await client.send({ method: "GET", path: "/ready" })).status).toBe(200);
    const after = await counts();
    // Rejected requests wrote nothing; accepted ones wrote exactly their record.
    expect(after).toEqual({
      ...before,
      signature: before.signature + accepted.signature.size,
      transaction: before.transaction + accepted.transaction.size,
      event_callback: before.event_callback + accepted.event_callback.size,
      wallet: before.wallet + accepted.wallet.size,
    });
    expect(await count("signature", `WHERE status = 'PENDING'`)).toBe(0);
    // No request failed unexpectedly: nothing was logged at error level (pino's 50).
    expect(h.logs.filter((line) => line.includes('"level":50')).map((line) => line.slice(0, 300))).toEqual([]);
    // The run did exercise the success paths, not only the refusals.
    expect(accepted.signature.size).toBeGreaterThan(20);
    expect(accepted.transaction.size).toBeGreaterThan(20);
    expect(accepted.event_callback.size).toBeGreaterThan(20);
  });
});
