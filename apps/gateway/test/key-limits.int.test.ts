import { randomUUID } from "node:crypto";
import { generateApiKey } from "@relay/core";
import { createApiKeyRepository, createChainRepository } from "@relay/db";
import { SCOPES, type Scope } from "@relay/policies";
import { createProjectFixture, type ProjectFixture } from "@relay/testing";
import { ROUTE_SCOPES } from "../src/middleware/route-scopes";
import { startHarness, type Harness } from "./harness";

/**
 * API key scopes and IP allowlists (docs/policies.md) through the real gateway: every route of the
 * scope table refuses a key without its scope with a 403 naming the scope and the command, and
 * lets a key with only that scope through to the route itself; an allowlist refuses addresses
 * outside it. The harness trusts X-Forwarded-For from loopback (trust proxy "loopback"), so req.ip
 * is what the test forwards, as behind a proxy.
 */
const CHAIN = 31_961;

describe("API key scopes and IP allowlists", () => {
  let h: Harness;
  let p: ProjectFixture;

  const keyWith = async (change: { scopes?: Scope[]; allowedCidrs?: string[] }) => {
    const key = generateApiKey();
    await createApiKeyRepository(h.db).create({ id: key.id, projectId: p.projectId, name: "limited", secretHash: key.secretHash, ...change });
    return { id: key.id, token: key.token };
  };
  const call = async (method: string, path: string, token: string, headers: Record<string, string> = {}) => {
    const res = await fetch(h.baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(method === "GET" || method === "DELETE" ? {} : { "content-type": "application/json" }), ...headers },
      body: method === "GET" || method === "DELETE" ? undefined : "{}",
    });
    const text = await res.text();
    return { status: res.status, message: (JSON.parse(text) as { message?: string }).message };
  };
  const pathOf = (template: string) => template.replace(":projectId", p.projectId).replace(/:[A-Za-z]+/g, () => randomUUID());

  beforeAll(async () => {
    h = await startHarness("key-limits");
    await createChainRepository(h.db).upsert({ chainId: BigInt(CHAIN), name: "key-limits", rpcUrls: ["http://127.0.0.1:9"], confirmations: 1, lowBalanceThresholdWei: 0n, blockTimeMs: 1000, stuckAfterSeconds: 30 });
    p = await createProjectFixture(h.db, h.kek);
  });
  afterAll(async () => {
    await h?.close();
  });

  it("keys created without scopes have all five, and keys from before scopes existed too", async () => {
    const [key] = await createApiKeyRepository(h.db).listByProject(p.projectId);
    expect(key!.scopes).toEqual([...SCOPES]);
    expect(key!.allowedCidrs).toEqual([]);
  });

  it.each(ROUTE_SCOPES.map((r) => [`${r.method} ${r.path}`, r] as const))("%s: 403 naming its scope without it, the route's own answer with only it", async (_name, route) => {
    const others = SCOPES.filter((s) => s !== route.scope);
    const without = await keyWith({ scopes: others });
    const path = pathOf(route.path);
    expect(await call(route.method, path, without.token)).toEqual({
      status: 403,
      message: `API key ${without.id} lacks the "${route.scope}" scope this route needs (it has: ${others.join(", ")}); use a key with it, or an operator adds it with \`npm run relay -- keys restrict ${without.id} --scopes ${[...others, route.scope].join(",")}\``,
    });
    const only = await keyWith({ scopes: [route.scope] });
    const answer = await call(route.method, path, only.token);
    // Past the key: the route's own 200, 400 (the empty body) or 404 (the random id).
    expect([200, 400, 404]).toContain(answer.status);
  });

  it("an IP allowlist lets in addresses inside it, IPv4 and IPv6, and refuses the rest with a 403 naming the command", async () => {
    const list = `/transact/project/${p.projectId}/transactions`;
    const tenOnly = await keyWith({ allowedCidrs: ["10.0.0.0/8"] });
    expect(await call("GET", list, tenOnly.token)).toEqual({
      status: 403,
      message: `API key ${tenOnly.id} may not be used from address 127.0.0.1: it is outside the key's IP allowlist; an operator changes the allowlist with \`npm run relay -- keys restrict ${tenOnly.id} --allow-ip <cidr,…>\``,
    });
    expect((await call("GET", list, tenOnly.token, { "x-forwarded-for": "10.20.30.40" })).status).toBe(200);
    expect((await call("GET", list, tenOnly.token, { "x-forwarded-for": "11.0.0.1" })).status).toBe(403);
    const loopback = await keyWith({ allowedCidrs: ["127.0.0.0/8"] });
    expect((await call("GET", list, loopback.token)).status).toBe(200);
    const v6 = await keyWith({ allowedCidrs: ["2001:db8::/32", "192.168.0.0/16"] });
    expect((await call("GET", list, v6.token, { "x-forwarded-for": "2001:db8:1::5" })).status).toBe(200);
    expect((await call("GET", list, v6.token, { "x-forwarded-for": "2001:db9::5" })).status).toBe(403);
    expect((await call("GET", list, v6.token, { "x-forwarded-for": "::ffff:192.168.1.1" })).status).toBe(200);
    expect((await call("GET", list, v6.token)).status).toBe(403);
  });

  it("a scope or allowlist change applies to the next request (auth cache off) and never makes another key's 401 a 403", async () => {
    const key = await keyWith({ scopes: ["read"] });
    const send = () => call("POST", "/transact/sendTransaction", key.token);
    expect((await send()).status).toBe(403);
    await createApiKeyRepository(h.db).restrict(key.id, { scopes: ["read", "send"] });
    expect((await send()).status).toBe(400);
    // An unknown key is 401 whatever the route's scope.
    expect((await call("POST", "/transact/sendTransaction", generateApiKey().token)).status).toBe(401);
  });
});
