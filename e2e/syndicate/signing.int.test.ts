import { randomUUID } from "node:crypto";
import { verifyMessage, verifyTypedData } from "ethers";
import { createProjectFixture, type ProjectFixture } from "@relay/testing";
import { post, startHarness, type Harness } from "../support/harness";

/** EIP-712's own example (nested structs) with arrays added, and EIP712Domain in types as Syndicate asks. */
const mail = (signerAddress: string) => ({
  signerAddress,
  domain: { name: "Ether Mail", version: "1", chainId: 1, verifyingContract: "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC" },
  types: {
    EIP712Domain: [
      { name: "name", type: "string" },
      { name: "version", type: "string" },
      { name: "chainId", type: "uint256" },
      { name: "verifyingContract", type: "address" },
    ],
    Person: [
      { name: "name", type: "string" },
      { name: "wallets", type: "address[]" },
    ],
    Mail: [
      { name: "from", type: "Person" },
      { name: "to", type: "Person[]" },
      { name: "contents", type: "string" },
      { name: "tags", type: "bytes32[2]" },
    ],
  },
  primaryType: "Mail",
  message: {
    from: { name: "Cow", wallets: ["0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"] },
    to: [{ name: "Bob", wallets: ["0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB", "0xB0BdaBea57B0BDABeA57b0bdABEA57b0BDabEa57"] }],
    contents: "Hello, Bob! ✓",
    tags: [`0x${"11".repeat(32)}`, `0x${"22".repeat(32)}`],
  },
});

/** An ERC-2612 permit: integers as decimal strings and numbers, no EIP712Domain entry. */
const permit = (signerAddress: string) => ({
  signerAddress,
  domain: { name: "USD Coin", version: "2", chainId: "8453", verifyingContract: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" },
  types: {
    Permit: [
      { name: "owner", type: "address" },
      { name: "spender", type: "address" },
      { name: "value", type: "uint256" },
      { name: "nonce", type: "uint256" },
      { name: "deadline", type: "uint256" },
    ],
  },
  primaryType: "Permit",
  message: { owner: signerAddress, spender: "0x000000000022D473030F116dDEE9F6B43aC78BA3", value: "115792089237316195423570985008687907853269984665640564039457584007913129639935", nonce: 0, deadline: 1900000000 },
});

const ethersTypes = (types: Record<string, { name: string; type: string }[]>) => Object.fromEntries(Object.entries(types).filter(([name]) => name !== "EIP712Domain"));

describe("Syndicate's typed-data signing and signature reads", () => {
  let h: Harness;
  let project: ProjectFixture;
  let other: ProjectFixture;
  const signPath = (projectId: string) => `/wallet/project/${projectId}/signTypedData`;
  const get = (path: string, apiKey: string) => fetch(h.baseUrl + path, { headers: { authorization: `Bearer ${apiKey}` } });
  const records = () => h.db.signature.count({ where: { projectId: project.projectId } });

  beforeAll(async () => {
    h = await startHarness("syndicate-signing");
    project = await createProjectFixture(h.db, h.kek, { wallets: 2 });
    other = await createProjectFixture(h.db, h.kek, { wallets: 1 });
  });
  afterAll(() => h.close());

  it.each([
    ["nested structs and arrays (EIP-712's Mail)", mail],
    ["an ERC-2612 permit", permit],
  ])("signs %s so that ethers.verifyTypedData returns the signer", async (_, build) => {
    const signer = project.wallets[0]!.address;
    const body = build(signer.toLowerCase());
    const res = await post(h.baseUrl, signPath(project.projectId), body, project.apiKey);
    expect(res.status).toBe(200);
    expect(res.body.signerAddress).toBe(signer);
    expect(res.body.message).toEqual(body.message);
    const signature = res.body.signature as string;
    expect(signature).toMatch(/^0x[0-9a-f]{130}$/);
    expect(verifyTypedData(body.domain, ethersTypes(body.types), body.message, signature)).toBe(signer);
    // Not a personal signature of anything it was given.
    expect(verifyMessage(JSON.stringify(body.message), signature)).not.toBe(signer);
  });

  it("takes an integer literal past 2^53 exactly, and answers it as a decimal string", async () => {
    const signer = project.wallets[0]!.address;
    const max = "115792089237316195423570985008687907853269984665640564039457584007913129639935";
    const body = permit(signer);
    const raw = JSON.stringify({ ...body, message: { ...body.message, value: "MAX" } }).replace('"MAX"', max);
    const res = await post(h.baseUrl, signPath(project.projectId), raw, project.apiKey, true);
    expect(res.status).toBe(200);
    expect((res.body.message as Record<string, unknown>).value).toBe(max);
    expect(verifyTypedData(body.domain, body.types, { ...body.message, value: max }, res.body.signature as string)).toBe(signer);
  });

  it("answers the stored signature for a repeated signatureId, and a 400 for that id with other typed data", async () => {
    const signatureId = randomUUID();
    const body = { ...mail(project.wallets[1]!.address), signatureId };
    const first = await post(h.baseUrl, signPath(project.projectId), body, project.apiKey);
    expect(first.status).toBe(200);
    expect(first.body.signatureId).toBe(signatureId);
    const again = await post(h.baseUrl, signPath(project.projectId), body, project.apiKey);
    expect(again.body.signature).toBe(first.body.signature);
    const changed = await post(h.baseUrl, signPath(project.projectId), { ...body, message: { ...body.message, contents: "changed" } }, project.apiKey);
    expect(changed.status).toBe(400);
    expect(changed.body.message).toMatch(/already used/);
    // Nor may a personal sign take a typed-data signature's id.
    const personal = await post(h.baseUrl, `/wallet/project/${project.projectId}/personalSign`, { signerAddress: body.signerAddress, message: "x", signatureId }, project.apiKey);
    expect(personal.status).toBe(400);
  });

  describe("every bad input is a 400 naming the field, and stores nothing", () => {
    const signer = () => project.wallets[0]!.address;
    const cases: [string, () => Record<string, unknown>, RegExp][] = [
      ["an unknown field type", () => { const b = mail(signer()); b.types.Mail[1] = { name: "to", type: "Persn[]" }; return b; }, /^types\.Mail\[1\]\.type names no type: "Persn\[\]"/],
      ["a primaryType not in types", () => ({ ...mail(signer()), primaryType: "Letter" }), /^primaryType "Letter" is not one of types/],
      ["a bad verifyingContract", () => ({ ...mail(signer()), domain: { ...mail(signer()).domain, verifyingContract: "0x1234" } }), /^domain\.verifyingContract must be/],
      ["an unknown domain field", () => ({ ...mail(signer()), domain: { ...mail(signer()).domain, chain: 1 } }), /^domain\.chain is not an EIP-712 domain field/],
      ["an EIP712Domain that disagrees with the domain", () => { const b = mail(signer()); b.types.EIP712Domain = b.types.EIP712Domain.slice(0, 2); return b; }, /^types\.EIP712Domain must list the domain's fields/],
      ["a message value of the wrong type", () => { const b = mail(signer()); b.message.from.wallets = ["not an address"]; return b; }, /^message\.from\.wallets\[0\] must be/],
      ["a missing message field", () => { const b = mail(signer()) as { message: Record<string, unknown> }; delete b.message.contents; return b; }, /^message\.contents is missing/],
      ["an extra message field", () => ({ ...mail(signer()), message: { ...mail(signer()).message, cc: [] } }), /^message\.cc is not a field of Mail/],
      ["a fixed array of the wrong length", () => { const b = mail(signer()); b.message.tags = [b.message.tags[0]!]; return b; }, /^message\.tags must have exactly 2 elements/],
      ["an integer out of range", () => ({ ...permit(signer()), message: { ...permit(signer()).message, value: "-1" } }), /^message\.value/],
      ["types that are not arrays of fields", () => ({ ...mail(signer()), types: { Mail: "x" } }), /types/],
      ["a missing domain", () => { const b = mail(signer()) as Record<string, unknown>; delete b.domain; return b; }, /^domain is required/],
      ["a signer of another project", () => ({ ...mail(other.wallets[0]!.address) }), /is not a wallet of project/],
    ];
    it.each(cases)("%s", async (_, build, message) => {
      const before = await records();
      const res = await post(h.baseUrl, signPath(project.projectId), build(), project.apiKey);
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
      expect(await records()).toBe(before);
    });
  });

  it("reads one typed-data signature and a page of them in Syndicate's shape; a personal one under /personalSignature(s)", async () => {
    const signer = project.wallets[0]!.address;
    const body = { ...permit(signer), signatureId: randomUUID() };
    const signed = await post(h.baseUrl, signPath(project.projectId), body, project.apiKey);
    expect(signed.status).toBe(200);
    const one = await get(`/wallet/project/${project.projectId}/signature/${body.signatureId}`, project.apiKey);
    expect(one.status).toBe(200);
    const read = (await one.json()) as Record<string, unknown>;
    expect(read).toMatchObject({ signatureId: body.signatureId, projectId: project.projectId, walletAddress: signer, primaryType: "Permit", signature: signed.body.signature });
    expect(read.domain).toEqual(body.domain);
    expect(read.types).toEqual(body.types);
    expect(read.message).toEqual(body.message);
    expect(Date.parse(read.createdAt as string)).not.toBeNaN();
    // The relay's own read shows the typed data as its JSON text.
    const own = (await (await get(`/wallet/project/${project.projectId}/signatures/${body.signatureId}`, project.apiKey)).json()) as { message: string; status: string };
    expect(own.status).toBe("SIGNED");
    expect(JSON.parse(own.message)).toMatchObject({ primaryType: "Permit", message: body.message });

    const list = (await (await get(`/wallet/project/${project.projectId}/signatures?limit=100`, project.apiKey)).json()) as { signatureId: string; domain: unknown }[];
    expect(list.map((s) => s.signatureId)).toContain(body.signatureId);
    expect(list.every((s) => s.domain !== undefined)).toBe(true); // typed-data signatures only
    const paged = (await (await get(`/wallet/project/${project.projectId}/signatures?limit=1&page=0`, project.apiKey)).json()) as unknown[];
    expect(paged).toHaveLength(1);
    expect((await get(`/wallet/project/${project.projectId}/signatures?limit=0`, project.apiKey)).status).toBe(400);

    const personalId = randomUUID();
    expect((await post(h.baseUrl, `/wallet/project/${project.projectId}/personalSign`, { signerAddress: signer, message: "plain", signatureId: personalId }, project.apiKey)).status).toBe(200);
    const personal = (await (await get(`/wallet/project/${project.projectId}/personalSignature/${personalId}`, project.apiKey)).json()) as Record<string, unknown>;
    expect(personal).toMatchObject({ signatureId: personalId, walletAddress: signer, message: "plain", chainId: 0 });
    expect(verifyMessage("plain", personal.signature as string)).toBe(signer);
    const personals = (await (await get(`/wallet/project/${project.projectId}/personalSignatures`, project.apiKey)).json()) as { signatureId: string }[];
    expect(personals.map((s) => s.signatureId)).toContain(personalId);
    expect(personals.map((s) => s.signatureId)).not.toContain(body.signatureId);
    // Each read answers its own kind only.
    expect((await get(`/wallet/project/${project.projectId}/signature/${personalId}`, project.apiKey)).status).toBe(404);
    expect((await get(`/wallet/project/${project.projectId}/personalSignature/${body.signatureId}`, project.apiKey)).status).toBe(404);
    // Another project's key: 403; this project's key for another project's id: 404.
    expect((await get(`/wallet/project/${project.projectId}/signature/${body.signatureId}`, other.apiKey)).status).toBe(403);
    expect((await get(`/wallet/project/${other.projectId}/signature/${body.signatureId}`, other.apiKey)).status).toBe(404);
  });

  it("stores nothing signed when the signing worker is down: the request fails and its record is removed", async () => {
    await h.stopWorker();
    try {
      const before = await records();
      const res = await post(h.baseUrl, signPath(project.projectId), mail(project.wallets[0]!.address), project.apiKey);
      expect(res.status).toBe(500);
      expect(await records()).toBe(before);
    } finally {
      await h.startWorker();
    }
  }, 30_000);
});
