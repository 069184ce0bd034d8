import { parseApiKey } from "@relay/core";
import { randomUUID } from "node:crypto";
import { verifyMessage } from "ethers";
import { createProjectFixture, type ProjectFixture } from "@relay/testing";
import { post, startHarness, type Harness } from "../support/harness";

describe("POST /wallet/project/:projectId/personalSign", () => {
  let h: Harness;
  let project: ProjectFixture;
  let other: ProjectFixture;
  const path = (projectId: string) => `/wallet/project/${projectId}/personalSign`;

  beforeAll(async () => {
    h = await startHarness("personal-sign");
    project = await createProjectFixture(h.db, h.kek, { wallets: 2 });
    other = await createProjectFixture(h.db, h.kek, { wallets: 1 });
  });
  afterAll(() => h.close());

  it("returns a signature that ethers.verifyMessage attributes to the checksummed signer", async () => {
    const signer = project.wallets[0]!.address;
    const message = "hello relay ✓ 0x1234\nline two";
    const res = await post(h.baseUrl, path(project.projectId), { signerAddress: signer.toLowerCase(), message }, project.apiKey);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe(message);
    expect(res.body.signerAddress).toBe(signer);
    expect(res.body.signature).toMatch(/^0x[0-9a-f]{130}$/);
    expect(["1b", "1c"]).toContain((res.body.signature as string).slice(-2));
    expect(verifyMessage(message, res.body.signature as string)).toBe(signer);
    expect(res.body.signatureId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("reads a null signatureId as omitted, as generated clients send an unset one", async () => {
    const signer = project.wallets[0]!.address;
    const res = await post(h.baseUrl, path(project.projectId), { signerAddress: signer, message: "null id", signatureId: null }, project.apiKey);
    expect(res.status).toBe(200);
    expect(res.body.signatureId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(verifyMessage("null id", res.body.signature as string)).toBe(signer);
  });

  it("stores the signature under the given signatureId and returns it again for the same request", async () => {
    const signatureId = randomUUID();
    const body = { signerAddress: project.wallets[1]!.address, message: "idempotent", signatureId };
    const first = await post(h.baseUrl, path(project.projectId), body, project.apiKey);
    expect(first.status).toBe(200);
    expect(first.body.signatureId).toBe(signatureId);

    await h.stopWorker(); // the repeat must come from the database, not from a new signing
    try {
      const again = await post(h.baseUrl, path(project.projectId), body, project.apiKey);
      expect(again.status).toBe(200);
      expect(again.body.signature).toBe(first.body.signature);
    } finally {
      await h.startWorker();
    }

    const read = await fetch(`${h.baseUrl}/wallet/project/${project.projectId}/signatures/${signatureId}`, {
      headers: { authorization: `Bearer ${project.apiKey}` },
    });
    expect(read.status).toBe(200);
    // API answers are not cached: no ETag (computing one hashed every response body).
    expect(read.headers.get("etag")).toBeNull();
    expect(await read.json()).toMatchObject({ signatureId, status: "SIGNED", message: "idempotent", signature: first.body.signature });
  });

  it("reads a stored signature back with its message exactly as signed, a leading byte-order mark included", async () => {
    const signer = project.wallets[0]!.address;
    const message = "\ufeffhello";
    const signed = await post(h.baseUrl, path(project.projectId), { signerAddress: signer, message }, project.apiKey);
    expect(signed.status).toBe(200);
    const read = await fetch(`${h.baseUrl}/wallet/project/${project.projectId}/signatures/${signed.body.signatureId as string}`, {
      headers: { authorization: `Bearer ${project.apiKey}` },
    });
    const body = (await read.json()) as { message: string; signature: string };
    expect(body.message).toBe(message);
    expect(verifyMessage(body.message, body.signature)).toBe(signer);
  });

  it("refuses a reused signatureId with another message (400)", async () => {
    const signatureId = randomUUID();
    const signerAddress = project.wallets[0]!.address;
    expect((await post(h.baseUrl, path(project.projectId), { signerAddress, message: "a", signatureId }, project.apiKey)).status).toBe(200);
    const res = await post(h.baseUrl, path(project.projectId), { signerAddress, message: "b", signatureId }, project.apiKey);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/already used/);
  });

  it("gives two projects using one signatureId each their own signature, revealing neither to the other; a reuse within a project answers as before", async () => {
    const sign = (p: ProjectFixture, message: string, signatureId: string) =>
      post(h.baseUrl, path(p.projectId), { signerAddress: p.wallets[0]!.address, message, signatureId }, p.apiKey);
    const read = async (p: ProjectFixture, signatureId: string) =>
      (await fetch(`${h.baseUrl}/wallet/project/${p.projectId}/signatures/${signatureId}`, { headers: { authorization: `Bearer ${p.apiKey}` } })).json();
    const [sequential, together] = [randomUUID(), randomUUID()];
    const requests = [
      { p: project, message: "project's", signatureId: sequential },
      { p: other, message: "other's", signatureId: sequential },
      { p: project, message: "project's", signatureId: together },
      { p: other, message: "other's", signatureId: together },
    ] as const;
    const send = (r: (typeof requests)[number]) => sign(r.p, r.message, r.signatureId);
    // One after the other, then both at once (one signing batch).
    const answers = [await send(requests[0]), await send(requests[1]), ...(await Promise.all([send(requests[2]), send(requests[3])]))];

    for (const [i, { p, message, signatureId }] of requests.entries()) {
      const res = answers[i]!;
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ signatureId, message, signerAddress: p.wallets[0]!.address });
      expect(verifyMessage(message, res.body.signature as string)).toBe(p.wallets[0]!.address);
      expect(await read(p, signatureId)).toMatchObject({ signatureId, projectId: p.projectId, message, signature: res.body.signature, status: "SIGNED" });
    }

    // Within a project the id still names its one request: the same one again is the stored signature, another is refused.
    const again = await sign(other, "other's", sequential);
    expect(again.status).toBe(200);
    expect(again.body.signature).toBe(answers[1]!.body.signature);
    const refused = await sign(other, "project's", sequential);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/already used/);
  });

  it("answers 400 when signerAddress is not a wallet of the project, even if another project owns it", async () => {
    const res = await post(h.baseUrl, path(project.projectId), { signerAddress: other.wallets[0]!.address, message: "x" }, project.apiKey);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/is not a wallet of project/);
  });

  it("answers 403 for a key of another project and 401 without a valid key", async () => {
    const body = { signerAddress: project.wallets[0]!.address, message: "x" };
    const forbidden = await post(h.baseUrl, path(project.projectId), body, other.apiKey);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.message).toMatch(/does not belong to project/);
    expect((await post(h.baseUrl, path(project.projectId), body)).status).toBe(401);
    const bogus = await post(h.baseUrl, path(project.projectId), body, `rk_${"0".repeat(32)}_${"A".repeat(43)}`);
    expect(bogus.status).toBe(401);
    expect(bogus.body.message).toMatch(/Invalid or revoked API key/);
  });

  it("keeps another project's signature unreadable (404)", async () => {
    const signatureId = randomUUID();
    await post(h.baseUrl, path(other.projectId), { signerAddress: other.wallets[0]!.address, message: "mine", signatureId }, other.apiKey);
    const res = await fetch(`${h.baseUrl}/wallet/project/${project.projectId}/signatures/${signatureId}`, {
      headers: { authorization: `Bearer ${project.apiKey}` },
    });
    expect(res.status).toBe(404);
  });

  it.each([
    ["a non-JSON body", "not json {", /not valid JSON/],
    ["an array", "[1,2]", /must be a JSON object/],
    ["a missing message", JSON.stringify({ signerAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" }), /message is required/],
    ["a number as message", JSON.stringify({ signerAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", message: 5 }), /message must be a string/],
    ["a bad address", JSON.stringify({ signerAddress: "0x1234", message: "m" }), /signerAddress must be a 0x-prefixed/],
    ["a bad checksum", JSON.stringify({ signerAddress: "0x70997970c51812dc3A010C7d01b50e0d17dc79C8", message: "m" }), /checksum/],
    ["a bad signatureId", JSON.stringify({ signerAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", message: "m", signatureId: "nope" }), /signatureId must be a UUID/],
    ["an unknown field", JSON.stringify({ signerAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", message: "m", extra: 1 }), /unknown field/],
    ["a lone surrogate", '{"signerAddress":"0x70997970C51812dc3A010C7d01b50e0d17dc79C8","message":"\\ud800"}', /lone surrogate/],
  ])("answers 400 with a message for %s", async (_name, raw, pattern) => {
    const res = await post(h.baseUrl, path(project.projectId), raw, project.apiKey, true);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(pattern);
  });

  it("answers 400 for a projectId that is not a UUID, 413 for an oversized body, 404 JSON for unknown routes", async () => {
    const bad = await post(h.baseUrl, path("not-a-uuid"), { signerAddress: project.wallets[0]!.address, message: "m" }, project.apiKey);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/projectId in the path must be a UUID/);

    const huge = await post(h.baseUrl, path(project.projectId), { signerAddress: project.wallets[0]!.address, message: "x".repeat(70 * 1024) }, project.apiKey);
    expect(huge.status).toBe(413);
    expect(huge.body.message).toMatch(/larger than/);

    const missing = await post(h.baseUrl, "/nope", {}, project.apiKey);
    expect(missing.status).toBe(404);
    expect(missing.body.message).toMatch(/No route/);
  });

  it("answers 400 when the body is sent without a JSON content type", async () => {
    const res = await fetch(h.baseUrl + path(project.projectId), {
      method: "POST",
      headers: { "content-type": "text/plain", authorization: `Bearer ${project.apiKey}` },
      body: JSON.stringify({ signerAddress: project.wallets[0]!.address, message: "m" }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(/Content-Type: application\/json/);
  });

  it("never writes an API key or a private key into the logs", async () => {
    const joined = h.logs.join("");
    expect(joined.length).toBeGreaterThan(0);
    expect(joined).not.toContain(project.apiKey);
    expect(joined).not.toContain(parseApiKey(project.apiKey)!.secret);
    expect(joined).not.toMatch(/v1\.test\./); // sealed keys
  });
});
