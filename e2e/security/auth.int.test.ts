import { generateApiKey } from "@relay/core";
import { createApiKeyRepository } from "@relay/db";
import { createProjectFixture, type ProjectFixture } from "@relay/testing";
import { post, startHarness, type Harness } from "../support/harness";

describe("authentication and rate limit", () => {
  let h: Harness;
  let project: ProjectFixture;
  const sign = (apiKey: string | undefined, headers: Record<string, string> = {}) =>
    fetch(`${h.baseUrl}/wallet/project/${project.projectId}/personalSign`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}), ...headers },
      body: JSON.stringify({ signerAddress: project.wallets[0]!.address, message: "hi" }),
    });

  beforeAll(async () => {
    h = await startHarness("auth", { rateLimitPerMinute: 3 });
    project = await createProjectFixture(h.db, h.kek);
  });
  afterAll(() => h.close());

  it("refuses a revoked key with 401", async () => {
    const victim = await createProjectFixture(h.db, h.kek);
    const res = await post(h.baseUrl, `/wallet/project/${victim.projectId}/personalSign`, { signerAddress: victim.wallets[0]!.address, message: "x" }, victim.apiKey);
    expect(res.status).toBe(200);
    await createApiKeyRepository(h.db).revoke(victim.apiKeyId);
    const after = await post(h.baseUrl, `/wallet/project/${victim.projectId}/personalSign`, { signerAddress: victim.wallets[0]!.address, message: "x" }, victim.apiKey);
    expect(after.status).toBe(401);
    expect(after.body.message).toMatch(/Invalid or revoked API key/);
  });

  it.each([
    ["no header", undefined, {}],
    ["another scheme", undefined, { authorization: "Basic dXNlcjpwYXNz" }],
    ["the key without the word Bearer", "NO_SCHEME", {}],
    ["a token with a wrong secret", "TOKEN_WRONG_SECRET", {}],
  ])("answers 401 JSON for %s", async (_name, key, headers) => {
    const token = key === "TOKEN_WRONG_SECRET" ? project.apiKey.slice(0, -4) + "AAAA" : key;
    const res = key === "NO_SCHEME" ? await sign(undefined, { authorization: project.apiKey }) : await sign(token, headers as Record<string, string>);
    expect(res.status).toBe(401);
    const { message } = (await res.json()) as { message: string };
    expect(message).toMatch(/API key/);
    // A header of the wrong form says how to write it, whatever key it holds.
    if (key === "NO_SCHEME" || "authorization" in headers) expect(message).toMatch(/^Authorization header is not of the form `Bearer <API key>`/);
  });

  it("limits each key per minute with 429, Retry-After and a JSON message, without touching other keys", async () => {
    // A cheap authenticated route, so the count does not depend on how fast signing is.
    const read = () =>
      fetch(`${h.baseUrl}/wallet/project/${project.projectId}/signatures/00000000-0000-4000-8000-000000000000`, {
        headers: { authorization: `Bearer ${project.apiKey}` },
      });
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < 4; i++) {
      const res = await read();
      statuses.push(res.status);
      if (res.status === 429) limited = res;
    }
    expect(statuses).toEqual([404, 404, 404, 429]);
    expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await limited!.json()) as { message: string }).message).toMatch(/Rate limit of 3 requests per minute/);

    const other = await createProjectFixture(h.db, h.kek);
    const res = await post(h.baseUrl, `/wallet/project/${other.projectId}/personalSign`, { signerAddress: other.wallets[0]!.address, message: "x" }, other.apiKey);
    expect(res.status).toBe(200);
  });

  it("counts each key on its own, also two keys of one project, on every route; a limited request stores nothing", async () => {
    const p = await createProjectFixture(h.db, h.kek);
    const second = generateApiKey();
    await createApiKeyRepository(h.db).create({ id: second.id, projectId: p.projectId, name: "second", secretHash: second.secretHash });
    const list = (key: string) => fetch(`${h.baseUrl}/webhook/project/${p.projectId}/eventCallbacks`, { headers: { authorization: `Bearer ${key}` } });
    const signatures = async () => Number((await h.db.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM signature WHERE project_id = ${p.projectId}::uuid`)[0]!.n);

    for (let i = 0; i < 3; i++) expect((await list(p.apiKey)).status).toBe(200);
    const limited = await post(h.baseUrl, `/wallet/project/${p.projectId}/personalSign`, { signerAddress: p.wallets[0]!.address, message: "over" }, p.apiKey);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(limited.body.message).toMatch(/Rate limit of 3 requests per minute for this API key exceeded/);
    expect(await signatures()).toBe(0);

    expect((await list(second.token)).status).toBe(200);
  });
});
