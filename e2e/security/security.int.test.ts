import { verifyMessage, Wallet } from "ethers";
import { generateApiKey, parseApiKey } from "@relay/core";
import { generateWalletKey } from "@relay/custody";
import { createApiKeyRepository, createChainRepository, createWalletRepository } from "@relay/db";
import { createProjectFixture, createTestDatabase, readRedisValues, type ProjectFixture, type TestDatabase } from "@relay/testing";
import { startHarness, type Harness } from "../support/harness";

/**
 * Who reaches what (docs/architecture.md, "Authentication and access"): every authenticated route ×
 * every kind of credential, ids of one project read through another's path, the body limit, and
 * secrets (API keys, whsec_ secrets, private keys, the KEKs) absent from logs, from every
 * response but the one that hands them out, and from Redis.
 */
const CHAIN_ID = 31_902;

interface Answer {
  status: number;
  body: Record<string, unknown>;
  text: string;
  headers: string;
}

interface Seeded {
  fixture: ProjectFixture;
  privateKey: string;
  signatureId: string;
  transactionId: string;
  callbackIds: string[];
}

/** The operator's token: reads (GET) of any project's routes, nothing else (docs/console.md). */
const ADMIN_TOKEN = "security-test-admin-token-0123456789";

describe("security: keys × projects × routes, limits and secrets", () => {
  let h: Harness;
  let database: TestDatabase;
  let a: Seeded;
  let b: Seeded;
  let revokedToken: string;
  /** Wallets of project A that the toggle and retire routes change (its first wallet stays active for the other routes). */
  const spare: string[] = [];
  /** A typed-data signature of each project (signTypedData, Syndicate's reads). */
  let typedA: string;
  let typedB: string;
  /** Transactions of project A the cancel (PENDING) and speedUp (SUBMITTED) routes act on. */
  let toCancel: string;
  /** A FAILED delivery of an event of A to A's first registration (no webhook worker runs here: written by hand). */
  let deliveryA: string;
  let deliveryB: string;
  let toSpeedUp: string;
  /** Every answer the gateway gave in this file, to scan for secrets. */
  const answers: Answer[] = [];
  /** whsec_ secrets, each with the one answer allowed to carry it. */
  const handedOut = new Map<string, Answer>();

  const call = async (method: string, path: string, token: string | undefined, body?: unknown): Promise<Answer> => {
    const headers: Record<string, string> = {};
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(h.baseUrl + path, { method, headers, body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body) });
    const text = await res.text();
    let parsed: Record<string, unknown> = {};
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // checked by the callers that need JSON
    }
    const answer = { status: res.status, body: parsed, text, headers: JSON.stringify([...res.headers]) };
    answers.push(answer);
    if (typeof parsed.secret === "string") handedOut.set(parsed.secret, answer);
    return answer;
  };

  const count = async (table: string) => Number((await h.db.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM "${table}"`))[0]!.n);
  const rows = async () => ({ signature: await count("signature"), transaction: await count("transaction"), event_callback: await count("event_callback") });
  const sealedSecret = async (id: string) =>
    (await h.db.$queryRawUnsafe<{ s: string }[]>(`SELECT encrypted_secret AS s FROM event_callback WHERE id = $1::uuid`, id))[0]!.s;

  const seed = async (): Promise<Seeded> => {
    const privateKey = Wallet.createRandom().privateKey;
    const fixture = await createProjectFixture(h.db, h.kek, { privateKeys: [privateKey] });
    const sign = await call("POST", `/wallet/project/${fixture.projectId}/personalSign`, fixture.apiKey, { signerAddress: fixture.wallets[0]!.address, message: "seed" });
    const tx = await call("POST", "/transact/sendTransaction", fixture.apiKey, { projectId: fixture.projectId, chainId: CHAIN_ID, contractAddress: fixture.wallets[0]!.address, functionSignature: "ping()" });
    const callbacks = [];
    for (const url of ["https://example.com/1", "https://example.com/2", "https://example.com/3"]) {
      callbacks.push(await call("POST", `/webhook/project/${fixture.projectId}/eventCallback`, fixture.apiKey, { callbackURL: url, eventType: "WalletBalanceLow" }));
    }
    for (const r of [sign, tx, ...callbacks]) expect(r.status).toBe(200);
    return { fixture, privateKey, signatureId: sign.body.signatureId as string, transactionId: tx.body.transactionId as string, callbackIds: callbacks.map((c) => c.body.id as string) };
  };

  beforeAll(async () => {
    database = await createTestDatabase({ migrate: true });
    h = await startHarness("security", { signTimeoutMs: 1500, adminToken: ADMIN_TOKEN }, { databaseUrl: database.url });
    await createChainRepository(h.db).upsert({ chainId: BigInt(CHAIN_ID), name: "security", rpcUrls: ["http://127.0.0.1:9"], confirmations: 1, lowBalanceThresholdWei: 0n, blockTimeMs: 1000, stuckAfterSeconds: 30 });
    a = await seed();
    b = await seed();
    const revoked = generateApiKey();
    await createApiKeyRepository(h.db).create({ id: revoked.id, projectId: a.fixture.projectId, name: "revoked", secretHash: revoked.secretHash });
    await createApiKeyRepository(h.db).revoke(revoked.id);
    revokedToken = revoked.token;
    for (let i = 0; i < 2; i++) {
      const key = generateWalletKey(h.kek);
      spare.push((await createWalletRepository(h.db).create({ projectId: a.fixture.projectId, address: key.address, sealKey: key.sealFor })).address);
    }
    for (const seeded of [a, b]) {
      const typed = await call("POST", `/wallet/project/${seeded.fixture.projectId}/signTypedData`, seeded.fixture.apiKey, typedData(seeded.fixture.wallets[0]!.address));
      expect(typed.status).toBe(200);
      if (seeded === a) typedA = typed.body.signatureId as string;
      else typedB = typed.body.signatureId as string;
    }
    const more = [];
    for (let i = 0; i < 2; i++) {
      more.push(await call("POST", "/transact/sendTransaction", a.fixture.apiKey, { projectId: a.fixture.projectId, chainId: CHAIN_ID, contractAddress: a.fixture.wallets[0]!.address, functionSignature: "ping()" }));
    }
    [toCancel, toSpeedUp] = more.map((r) => r.body.transactionId as string) as [string, string];
    const failedDelivery = async (seeded: Seeded) =>
      (
        await h.db.$queryRawUnsafe<{ id: string }[]>(
          `INSERT INTO webhook_delivery (event_id, event_callback_id, status, attempts)
           SELECT e.id, $2::uuid, 'FAILED', 3 FROM event e WHERE e.project_id = $1::uuid ORDER BY e.seq LIMIT 1 RETURNING id`,
          seeded.fixture.projectId,
          seeded.callbackIds[0],
        )
      )[0]!.id;
    deliveryA = await failedDelivery(a);
    deliveryB = await failedDelivery(b);
    // No tx-worker runs here: the status a speed-up needs is set by hand.
    await h.db.$executeRawUnsafe(`UPDATE transaction SET status = 'SUBMITTED' WHERE id = $1::uuid`, toSpeedUp);
  });
  afterAll(async () => {
    await h?.close();
    await database?.drop();
  });

  const typedData = (signerAddress: string) => ({ signerAddress, domain: { name: "matrix", chainId: 1 }, types: { Ping: [{ name: "n", type: "uint256" }] }, primaryType: "Ping", message: { n: 1 } });

  /** The authenticated routes, each aimed at project A's own records. The last callback of A is the one DELETE removes. */
  const ROUTES: [string, () => { method: string; path: string; body?: unknown }][] = [
    ["POST personalSign", () => ({ method: "POST", path: `/wallet/project/${a.fixture.projectId}/personalSign`, body: { signerAddress: a.fixture.wallets[0]!.address, message: "matrix" } })],
    ["GET signature", () => ({ method: "GET", path: `/wallet/project/${a.fixture.projectId}/signatures/${a.signatureId}` })],
    ["POST sendTransaction", () => ({ method: "POST", path: "/transact/sendTransaction", body: { projectId: a.fixture.projectId, chainId: CHAIN_ID, contractAddress: a.fixture.wallets[0]!.address, functionSignature: "ping()" } })],
    ["GET transaction", () => ({ method: "GET", path: `/transact/project/${a.fixture.projectId}/transactions/${a.transactionId}` })],
    ["GET transaction events", () => ({ method: "GET", path: `/transact/project/${a.fixture.projectId}/transactions/${a.transactionId}/events` })],
    ["GET activity", () => ({ method: "GET", path: `/transact/project/${a.fixture.projectId}/activity?window=day` })],
    ["POST eventCallback", () => ({ method: "POST", path: `/webhook/project/${a.fixture.projectId}/eventCallback`, body: { callbackURL: "https://example.com/matrix", eventType: "TransactionStatusChange" } })],
    ["GET eventCallbacks", () => ({ method: "GET", path: `/webhook/project/${a.fixture.projectId}/eventCallbacks` })],
    ["POST rotateSecret", () => ({ method: "POST", path: `/webhook/project/${a.fixture.projectId}/eventCallback/${a.callbackIds[0]}/rotateSecret` })],
    ["DELETE eventCallback", () => ({ method: "DELETE", path: `/webhook/project/${a.fixture.projectId}/eventCallback/${a.callbackIds[2]}` })],
    ["POST redeliver", () => ({ method: "POST", path: `/webhook/project/${a.fixture.projectId}/eventCallback/${a.callbackIds[0]}/delivery/${deliveryA}/redeliver` })],
    ["GET funding transactions", () => ({ method: "GET", path: `/funding/project/${a.fixture.projectId}/transactions` })],
    ["GET wallets", () => ({ method: "GET", path: `/wallet/project/${a.fixture.projectId}/wallets?withData=true` })],
    ["POST createWallet", () => ({ method: "POST", path: "/wallet/create", body: { projectId: a.fixture.projectId, chainId: CHAIN_ID } })],
    ["POST toggleIsActive", () => ({ method: "POST", path: "/wallet/toggleIsActive", body: { projectId: a.fixture.projectId, walletAddress: spare[0] } })],
    ["POST retireWallet", () => ({ method: "POST", path: "/wallet/retire", body: { projectId: a.fixture.projectId, walletAddress: spare[1] } })],
    ["GET Syndicate request", () => ({ method: "GET", path: `/wallet/project/${a.fixture.projectId}/request/${a.transactionId}` })],
    ["GET Syndicate requests", () => ({ method: "GET", path: `/wallet/project/${a.fixture.projectId}/requests?page=0&limit=5&invalid=false` })],
    ["GET Syndicate transactions", () => ({ method: "GET", path: `/wallet/project/${a.fixture.projectId}/transactions?status=PENDING&status=CONFIRMED&reverted=false` })],
    ["GET Syndicate transactionStats", () => ({ method: "GET", path: `/wallet/project/${a.fixture.projectId}/transactionStats` })],
    ["POST signTypedData", () => ({ method: "POST", path: `/wallet/project/${a.fixture.projectId}/signTypedData`, body: typedData(a.fixture.wallets[0]!.address) })],
    ["GET typed-data signature", () => ({ method: "GET", path: `/wallet/project/${a.fixture.projectId}/signature/${typedA}` })],
    ["GET typed-data signatures", () => ({ method: "GET", path: `/wallet/project/${a.fixture.projectId}/signatures` })],
    ["GET personal signature", () => ({ method: "GET", path: `/wallet/project/${a.fixture.projectId}/personalSignature/${a.signatureId}` })],
    ["GET personal signatures", () => ({ method: "GET", path: `/wallet/project/${a.fixture.projectId}/personalSignatures` })],
    ["GET transactions list", () => ({ method: "GET", path: `/transact/project/${a.fixture.projectId}/transactions?status=PENDING,CONFIRMED&limit=5` })],
    ["GET policy", () => ({ method: "GET", path: `/transact/project/${a.fixture.projectId}/policy` })],
    ["POST cancel", () => ({ method: "POST", path: `/transact/project/${a.fixture.projectId}/transactions/${toCancel}/cancel` })],
    ["POST speedUp", () => ({ method: "POST", path: `/transact/project/${a.fixture.projectId}/transactions/${toSpeedUp}/speedUp` })],
  ];

  const INVALID = "Invalid or revoked API key; send `Authorization: Bearer <API key>` with an active key";
  const CREDENTIALS: [string, () => string | undefined, number, () => string | RegExp][] = [
    ["no key", () => undefined, 401, () => /^Missing Authorization header/],
    ["a malformed key", () => "not-a-key", 401, () => INVALID],
    ["an unknown key", () => generateApiKey().token, 401, () => INVALID],
    ["a known key id with a wrong secret", () => a.fixture.apiKey.slice(0, -4) + (a.fixture.apiKey.endsWith("AAAA") ? "BBBB" : "AAAA"), 401, () => INVALID],
    ["a revoked key of the project", () => revokedToken, 401, () => INVALID],
    ["another project's key", () => b.fixture.apiKey, 403, () => `This API key does not belong to project ${a.fixture.projectId}`],
  ];

  it.each(ROUTES)("%s: 401 for missing, malformed, unknown, wrong and revoked keys, 403 for another project's key, nothing written; 200 for the project's key", async (_name, route) => {
    const { method, path, body } = route();
    const before = await rows();
    for (const [credential, token, status, message] of CREDENTIALS) {
      const answer = await call(method, path, token(), body);
      const expected = message();
      expect({ credential, status: answer.status, message: answer.body.message }).toEqual({
        credential,
        status,
        message: typeof expected === "string" ? expected : expect.stringMatching(expected),
      });
    }
    expect(await rows()).toEqual(before);
    expect((await call(method, path, a.fixture.apiKey, body)).status).toBe(200);
  });

  it("reads an id of project B through project A's path as not found, and changes none of B's records", async () => {
    const key = a.fixture.apiKey;
    const A = a.fixture.projectId;
    const sealedBefore = await sealedSecret(b.callbackIds[0]!);
    const attempts = [
      await call("GET", `/wallet/project/${A}/signatures/${b.signatureId}`, key),
      await call("GET", `/transact/project/${A}/transactions/${b.transactionId}`, key),
      await call("GET", `/transact/project/${A}/transactions/${b.transactionId}/events`, key),
      await call("DELETE", `/webhook/project/${A}/eventCallback/${b.callbackIds[0]}`, key),
      await call("POST", `/webhook/project/${A}/eventCallback/${b.callbackIds[0]}/rotateSecret`, key),
      await call("GET", `/wallet/project/${A}/request/${b.transactionId}`, key),
      await call("POST", `/transact/project/${A}/transactions/${b.transactionId}/cancel`, key),
      await call("POST", `/transact/project/${A}/transactions/${b.transactionId}/speedUp`, key),
      await call("POST", `/webhook/project/${A}/eventCallback/${b.callbackIds[0]}/delivery/${deliveryB}/redeliver`, key),
      await call("POST", `/webhook/project/${A}/eventCallback/${a.callbackIds[0]}/delivery/${deliveryB}/redeliver`, key),
    ];
    expect(attempts.map((r) => r.status)).toEqual([404, 404, 404, 404, 404, 404, 404, 404, 404, 404]);
    // B's delivery was not sent again.
    const [deliveryOfB] = await h.db.$queryRawUnsafe<{ status: string }[]>(`SELECT status::text FROM webhook_delivery WHERE id = $1::uuid`, deliveryB);
    expect(deliveryOfB!.status).toBe("FAILED");
    // B's transaction was neither cancelled nor marked.
    const bTx = await call("GET", `/transact/project/${b.fixture.projectId}/transactions/${b.transactionId}`, b.fixture.apiKey);
    expect(bTx.body.status).toBe("PENDING");
    // Nor does a list through A's path find B's transaction by its id.
    for (const list of ["requests", "transactions"]) {
      const found = await call("GET", `/wallet/project/${A}/${list}?search=${b.transactionId}`, key);
      expect([list, found.status, found.body.total]).toEqual([list, 200, 0]);
    }
    // Our own list through A's path has none of B's transactions, and refuses B's cursor.
    const ours = await call("GET", `/transact/project/${A}/transactions?limit=100`, key);
    expect(ours.status).toBe(200);
    expect((ours.body.transactions as { transactionId: string }[]).map((t) => t.transactionId)).not.toContain(b.transactionId);
    const second = { projectId: b.fixture.projectId, chainId: CHAIN_ID, contractAddress: b.fixture.wallets[0]!.address, functionSignature: "ping()" };
    expect((await call("POST", "/transact/sendTransaction", b.fixture.apiKey, second)).status).toBe(200); // B has two: a page of one has a next
    const theirs = await call("GET", `/transact/project/${b.fixture.projectId}/transactions?limit=1`, b.fixture.apiKey);
    const withTheirCursor = await call("GET", `/transact/project/${A}/transactions?cursor=${theirs.body.nextCursor as string}`, key);
    expect([withTheirCursor.status, withTheirCursor.body.message]).toEqual([400, "cursor belongs to another project's list"]);
    for (const r of attempts) expect(r.body.message).toMatch(new RegExp(`^No (signature|transaction|event callback|delivery [0-9a-f-]+ of event callback) [0-9a-f-]+ in project ${A}$`));
    expect(await sealedSecret(b.callbackIds[0]!)).toBe(sealedBefore);
    const listed = await call("GET", `/webhook/project/${b.fixture.projectId}/eventCallbacks`, b.fixture.apiKey);
    expect((listed.body as unknown as { id: string; disabled: boolean }[]).find((c) => c.id === b.callbackIds[0])?.disabled).toBe(false);
  });

  it("answers project B's wallet through project A as not found, and leaves it as it was", async () => {
    const key = a.fixture.apiKey;
    const A = a.fixture.projectId;
    const address = b.fixture.wallets[0]!.address;
    const attempts = [
      await call("POST", "/wallet/toggleIsActive", key, { projectId: A, walletAddress: address }),
      await call("POST", "/wallet/retire", key, { projectId: A, walletAddress: address }),
    ];
    expect(attempts.map((r) => r.status)).toEqual([404, 404]);
    for (const r of attempts) expect(r.body.message).toBe(`No wallet ${address} in project ${A}`);
    expect(await createWalletRepository(h.db).findByAddress(address)).toMatchObject({ isActive: true, retiredAt: null });
    const listed = await call("GET", `/wallet/project/${A}/wallets`, key);
    expect((listed.body as unknown as { walletAddress: string }[]).map((w) => w.walletAddress)).not.toContain(address);
  });

  it("refuses project A's key on project B's path with B's ids (403), whatever the route", async () => {
    const key = a.fixture.apiKey;
    const B = b.fixture.projectId;
    const before = await rows();
    const attempts = [
      await call("POST", `/wallet/project/${B}/personalSign`, key, { signerAddress: b.fixture.wallets[0]!.address, message: "x" }),
      await call("GET", `/wallet/project/${B}/signatures/${b.signatureId}`, key),
      await call("POST", "/transact/sendTransaction", key, { projectId: B, chainId: CHAIN_ID, contractAddress: b.fixture.wallets[0]!.address, functionSignature: "ping()" }),
      await call("GET", `/transact/project/${B}/transactions/${b.transactionId}`, key),
      await call("GET", `/transact/project/${B}/transactions/${b.transactionId}/events`, key),
      await call("GET", `/transact/project/${B}/activity`, key),
      await call("POST", `/webhook/project/${B}/eventCallback`, key, { callbackURL: "https://example.com/x", eventType: "WalletBalanceLow" }),
      await call("GET", `/webhook/project/${B}/eventCallbacks`, key),
      await call("POST", `/webhook/project/${B}/eventCallback/${b.callbackIds[1]}/rotateSecret`, key),
      await call("POST", `/webhook/project/${B}/eventCallback/${b.callbackIds[0]}/delivery/${deliveryB}/redeliver`, key),
      await call("DELETE", `/webhook/project/${B}/eventCallback/${b.callbackIds[1]}`, key),
      // UUIDs are case-insensitive: B's id in upper case is still B's.
      await call("GET", `/transact/project/${B.toUpperCase()}/transactions/${b.transactionId}`, key),
      await call("GET", `/funding/project/${B}/transactions`, key),
      await call("GET", `/wallet/project/${B}/wallets`, key),
      await call("POST", "/wallet/create", key, { projectId: B, chainId: CHAIN_ID }),
      await call("POST", "/wallet/toggleIsActive", key, { projectId: B, walletAddress: b.fixture.wallets[0]!.address }),
      await call("POST", "/wallet/retire", key, { projectId: B, walletAddress: b.fixture.wallets[0]!.address }),
      // A body naming B is refused whatever else is wrong with it.
      await call("POST", "/wallet/retire", key, { projectId: B, walletAddress: "nonsense", gasRecipient: 1 }),
      await call("GET", `/wallet/project/${B}/request/${b.transactionId}`, key),
      await call("GET", `/wallet/project/${B}/requests?search=${b.transactionId}`, key),
      await call("GET", `/wallet/project/${B}/transactions`, key),
      await call("GET", `/wallet/project/${B.toUpperCase()}/transactionStats`, key),
      await call("POST", `/wallet/project/${B}/signTypedData`, key, typedData(b.fixture.wallets[0]!.address)),
      await call("GET", `/wallet/project/${B}/signature/${typedB}`, key),
      await call("GET", `/wallet/project/${B}/signatures`, key),
      await call("GET", `/wallet/project/${B}/personalSignature/${b.signatureId}`, key),
      await call("GET", `/wallet/project/${B}/personalSignatures`, key),
      await call("GET", `/transact/project/${B}/transactions?status=PENDING`, key),
      await call("POST", `/transact/project/${B}/transactions/${b.transactionId}/cancel`, key),
      await call("POST", `/transact/project/${B}/transactions/${b.transactionId}/speedUp`, key),
    ];
    expect(attempts.map((r) => r.status)).toEqual(attempts.map(() => 403));
    expect(await rows()).toEqual(before);
  });

  it("GET /transact/projects: a key lists its own project only, ADMIN_TOKEN every project; refused credentials are 401", async () => {
    const own = await call("GET", "/transact/projects", a.fixture.apiKey);
    expect((own.body.projects as { projectId: string }[]).map((p) => p.projectId)).toEqual([a.fixture.projectId]);
    const all = await call("GET", "/transact/projects", ADMIN_TOKEN);
    expect((all.body.projects as { projectId: string }[]).map((p) => p.projectId)).toEqual(expect.arrayContaining([a.fixture.projectId, b.fixture.projectId]));
    for (const token of [undefined, "not-a-key", revokedToken, `${ADMIN_TOKEN}0`]) expect((await call("GET", "/transact/projects", token)).status).toBe(401);
  });

  it("lets ADMIN_TOKEN read both projects through every GET route, and refuses it (403) on every route that changes something", async () => {
    const reads = (p: Seeded, typed: string) => {
      const P = p.fixture.projectId;
      return [
        `/wallet/project/${P}/signatures/${p.signatureId}`,
        `/transact/project/${P}/transactions/${p.transactionId}`,
        `/transact/project/${P}/transactions/${p.transactionId}/events`,
        `/transact/project/${P}/activity`,
        `/transact/project/${P}/transactions?status=PENDING`,
        `/transact/project/${P}/policy`,
        `/webhook/project/${P}/eventCallbacks`,
        `/funding/project/${P}/transactions`,
        `/wallet/project/${P}/wallets`,
        `/wallet/project/${P}/request/${p.transactionId}`,
        `/wallet/project/${P}/requests?search=${p.transactionId}`,
        `/wallet/project/${P}/transactions`,
        `/wallet/project/${P}/transactionStats`,
        `/wallet/project/${P}/signature/${typed}`,
        `/wallet/project/${P}/signatures`,
        `/wallet/project/${P}/personalSignature/${p.signatureId}`,
        `/wallet/project/${P}/personalSignatures`,
      ];
    };
    const paths = [...reads(a, typedA), ...reads(b, typedB)];
    const answered = await Promise.all(paths.map(async (path) => ({ path, status: (await call("GET", path, ADMIN_TOKEN)).status })));
    expect(answered).toEqual(paths.map((path) => ({ path, status: 200 })));
    const list = await call("GET", `/transact/project/${b.fixture.projectId}/transactions`, ADMIN_TOKEN);
    expect((list.body.transactions as { transactionId: string }[]).map((t) => t.transactionId)).toContain(b.transactionId);

    const B = b.fixture.projectId;
    const before = await rows();
    const writes = [
      await call("POST", `/wallet/project/${B}/personalSign`, ADMIN_TOKEN, { signerAddress: b.fixture.wallets[0]!.address, message: "x" }),
      await call("POST", "/transact/sendTransaction", ADMIN_TOKEN, { projectId: B, chainId: CHAIN_ID, contractAddress: b.fixture.wallets[0]!.address, functionSignature: "ping()" }),
      await call("POST", `/webhook/project/${B}/eventCallback`, ADMIN_TOKEN, { callbackURL: "https://example.com/x", eventType: "WalletBalanceLow" }),
      await call("POST", `/webhook/project/${B}/eventCallback/${b.callbackIds[0]}/rotateSecret`, ADMIN_TOKEN),
      await call("POST", `/webhook/project/${B}/eventCallback/${b.callbackIds[0]}/delivery/${deliveryB}/redeliver`, ADMIN_TOKEN),
      await call("DELETE", `/webhook/project/${B}/eventCallback/${b.callbackIds[0]}`, ADMIN_TOKEN),
      await call("POST", "/wallet/create", ADMIN_TOKEN, { projectId: B, chainId: CHAIN_ID }),
      await call("POST", "/wallet/toggleIsActive", ADMIN_TOKEN, { projectId: B, walletAddress: b.fixture.wallets[0]!.address }),
      await call("POST", "/wallet/retire", ADMIN_TOKEN, { projectId: B, walletAddress: b.fixture.wallets[0]!.address }),
      await call("POST", `/wallet/project/${B}/signTypedData`, ADMIN_TOKEN, typedData(b.fixture.wallets[0]!.address)),
      await call("POST", `/transact/project/${B}/transactions/${b.transactionId}/cancel`, ADMIN_TOKEN),
      await call("POST", `/transact/project/${B}/transactions/${b.transactionId}/speedUp`, ADMIN_TOKEN),
      await call("POST", "/transact/call", ADMIN_TOKEN, { chainId: CHAIN_ID, contractAddress: b.fixture.wallets[0]!.address, functionSignature: "ping()" }),
    ];
    expect(writes.map((r) => r.status)).toEqual(writes.map(() => 403));
    expect(await rows()).toEqual(before);
    // Not a key: a token that is not exactly ADMIN_TOKEN is an unknown key.
    expect((await call("GET", `/transact/project/${B}/transactions`, `${ADMIN_TOKEN}0`)).status).toBe(401);
  });

  it("refuses to sign with project B's wallet through project A, and B's signatureId used through A is A's own, revealing nothing of B", async () => {
    const key = a.fixture.apiKey;
    const path = `/wallet/project/${a.fixture.projectId}/personalSign`;
    const before = await rows();
    const wallet = await call("POST", path, key, { signerAddress: b.fixture.wallets[0]!.address, message: "x" });
    expect(wallet.status).toBe(400);
    expect(wallet.body.message).toMatch(/is not a wallet of project/);
    expect(await rows()).toEqual(before);

    // signatureIds are per project: B's id (and B's message) through A signs A's own request.
    const storedOfB = () => h.db.signature.findUnique({ where: { projectId_id: { projectId: b.fixture.projectId, id: b.signatureId } } });
    const ofB = await storedOfB();
    const reused = await call("POST", path, key, { signerAddress: a.fixture.wallets[0]!.address, message: "seed", signatureId: b.signatureId });
    expect(reused.status).toBe(200);
    expect(verifyMessage("seed", reused.body.signature as string)).toBe(a.fixture.wallets[0]!.address);
    expect(reused.text).not.toContain(b.fixture.wallets[0]!.address);
    expect(reused.text).not.toContain(ofB!.signature!);
    expect(await storedOfB()).toEqual(ofB);
    expect(await rows()).toEqual({ ...before, signature: before.signature + 1 });
  });

  it("reads B's typed-data and personal signatures through A's path as not found, and lists none of them", async () => {
    const key = a.fixture.apiKey;
    const A = a.fixture.projectId;
    // A personal signature of B's under an id A has not used (A took b.signatureId for itself above).
    const personalB = await call("POST", `/wallet/project/${b.fixture.projectId}/personalSign`, b.fixture.apiKey, { signerAddress: b.fixture.wallets[0]!.address, message: "B's" });
    expect(personalB.status).toBe(200);
    const attempts = [
      await call("GET", `/wallet/project/${A}/signature/${typedB}`, key),
      await call("GET", `/wallet/project/${A}/personalSignature/${personalB.body.signatureId as string}`, key),
    ];
    expect(attempts.map((r) => r.status)).toEqual([404, 404]);
    for (const r of attempts) expect(r.body.message).toMatch(new RegExp(`^No (typed-data|personal) signature [0-9a-f-]+ in project ${A}$`));
    const listed = [await call("GET", `/wallet/project/${A}/signatures?limit=100`, key), await call("GET", `/wallet/project/${A}/personalSignatures?limit=100`, key)];
    const ids = listed.flatMap((r) => (JSON.parse(r.text) as { signatureId: string; projectId: string }[]).map((s) => [s.signatureId, s.projectId]));
    expect(ids.length).toBeGreaterThan(0);
    for (const [, projectId] of ids) expect(projectId).toBe(A);
    expect(ids.map(([id]) => id)).not.toContain(typedB);
  });

  it("POST /transact/call: 401 for missing, malformed, unknown, wrong and revoked keys; any project's key is let through (nothing of a project is read)", async () => {
    const body = { chainId: CHAIN_ID, contractAddress: a.fixture.wallets[0]!.address, functionSignature: "ping()" };
    for (const [credential, token, status] of CREDENTIALS.filter(([, , s]) => s === 401)) {
      expect({ credential, status: (await call("POST", "/transact/call", token(), body)).status }).toEqual({ credential, status });
    }
    // The chain's only RPC URL is down here: past authentication, the call itself is a 503.
    for (const key of [a.fixture.apiKey, b.fixture.apiKey]) expect((await call("POST", "/transact/call", key, body)).status).toBe(503);
  });

  it("accepts the project's own ids in upper case", async () => {
    const A = a.fixture.projectId.toUpperCase();
    expect((await call("GET", `/transact/project/${A}/transactions/${a.transactionId.toUpperCase()}`, a.fixture.apiKey)).status).toBe(200);
    expect((await call("GET", `/wallet/project/${A}/signatures/${a.signatureId.toUpperCase()}`, a.fixture.apiKey)).status).toBe(200);
  });

  it.each([
    ["personalSign", () => `/wallet/project/${a.fixture.projectId}/personalSign`, () => ({ signerAddress: a.fixture.wallets[0]!.address, message: "x".repeat(100_000) })],
    ["sendTransaction", () => "/transact/sendTransaction", () => ({ projectId: a.fixture.projectId, chainId: CHAIN_ID, contractAddress: a.fixture.wallets[0]!.address, functionSignature: "setNote(string note)", args: { note: "x".repeat(100_000) } })],
    ["eventCallback", () => `/webhook/project/${a.fixture.projectId}/eventCallback`, () => ({ callbackURL: `https://example.com/${"x".repeat(100_000)}`, eventType: "WalletBalanceLow" })],
  ])("refuses a %s body over the limit with 413 JSON, with or without a key, and stores nothing", async (_name, path, body) => {
    const before = await rows();
    for (const token of [a.fixture.apiKey, undefined]) {
      const answer = await call("POST", path(), token, body());
      expect(answer.status).toBe(413);
      expect(answer.body.message).toBe("Request body is larger than the 65536 byte limit");
    }
    expect(await rows()).toEqual(before);
  });

  it("records a failed signing in the logs (scanned for secrets below)", async () => {
    await h.stopWorker();
    try {
      const answer = await call("POST", `/wallet/project/${a.fixture.projectId}/personalSign`, a.fixture.apiKey, { signerAddress: a.fixture.wallets[0]!.address, message: "no worker" });
      expect(answer.status).toBe(500);
    } finally {
      await h.startWorker();
    }
    expect(h.logs.join("")).toMatch(/personal sign not completed/);
  });

  it("keeps API keys, webhook secrets, private keys and both KEKs out of logs, out of Redis, and out of every answer but the one that hands a secret out", async () => {
    const bytes = (k: Harness["kek"]) => [...k.keys.values()].map((key) => Buffer.from(key)).flatMap((key) => [key.toString("hex"), key.toString("base64"), key.toString("base64url")]);
    const tokens = [a.fixture.apiKey, b.fixture.apiKey, revokedToken, ADMIN_TOKEN];
    const secrets = [
      ...tokens,
      ...tokens.flatMap((t) => parseApiKey(t)?.secret ?? []),
      ...[a.privateKey, b.privateKey].flatMap((k) => [k, k.slice(2), Buffer.from(k.slice(2), "hex").toString("base64")]),
      ...bytes(h.kek),
      ...bytes(h.webhookKeyring),
    ];
    // Registration and rotation in this file handed out secrets; they are kept only sealed.
    expect(handedOut.size).toBeGreaterThanOrEqual(8);

    const logs = h.logs.join("");
    expect(logs).toMatch(/"statusCode":401/); // the logs did record the refused requests
    const redis = [...(await readRedisValues(h.redis, h.prefix)).entries()];
    expect(redis.length).toBeGreaterThan(0);
    const leaks = (text: string, extra: string[] = []) => [...secrets, ...extra].filter((s) => text.includes(s));

    const whsec = [...handedOut.keys()].flatMap((s) => [s, s.replace(/^whsec_/, "")]);
    expect(leaks(logs, whsec)).toEqual([]);
    // Key names too: a rate limit keyed by the raw Authorization header would put API keys there.
    for (const [key, value] of redis) expect({ key, leaks: leaks(`${key}\n${value}`, whsec) }).toEqual({ key, leaks: [] });
    for (const answer of answers) {
      const mayCarry = [...handedOut].filter(([, given]) => given === answer).map(([s]) => s);
      const others = whsec.filter((s) => !mayCarry.some((m) => m === s || m === `whsec_${s}`));
      expect({ answer: answer.text.slice(0, 200), leaks: leaks(answer.text + answer.headers, others) }).toEqual({ answer: answer.text.slice(0, 200), leaks: [] });
    }
  });
});
