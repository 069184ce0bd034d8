import { randomUUID } from "node:crypto";
import { AppError } from "@relay/core";
import { createDatabase, createPool, createSignatureRepository, type SignatureRepository } from "@relay/db";
import { createProjectFixture, testDatabaseUrl, testKek, type ProjectFixture } from "@relay/testing";
import { claimSignatureId } from "./claim-signature-id";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("claimSignatureId", () => {
  const pool = createPool({ url: testDatabaseUrl(), poolSize: 2 });
  const db = createDatabase({ pool });
  const signatures = createSignatureRepository(pool);
  let project: ProjectFixture;
  const request = (id = randomUUID(), message = "hello") => ({ id, projectId: project.projectId, walletId: project.wallets[0]!.id, message: bytes(message) });

  beforeAll(async () => {
    project = await createProjectFixture(db, testKek(), { wallets: 2 });
  });
  afterAll(async () => {
    await db.$disconnect();
    if (!pool.ended) await pool.end();
  });

  it("stores a new request; finds the same request again, pending or signed; refuses the id for another message or signer", async () => {
    const first = request();
    expect(await claimSignatureId(signatures, first)).toEqual({ kind: "new" });
    expect(await claimSignatureId(signatures, first)).toEqual({ kind: "pending", waitedMs: expect.any(Number) });
    expect(await signatures.markSigned(first, "0xsigned", first)).toBe(true);
    expect(await claimSignatureId(signatures, first)).toEqual({ kind: "signed", signature: "0xsigned" });

    const otherMessage = claimSignatureId(signatures, request(first.id, "something else"));
    await expect(otherMessage).rejects.toMatchObject({ code: "SIGNATURE_ERROR", message: expect.stringMatching(/already used for another signer or message/) });
    await expect(claimSignatureId(signatures, { ...first, walletId: project.wallets[1]!.id })).rejects.toBeInstanceOf(AppError);
  });

  it("stores a retry whose earlier try was removed between its insert's conflict and the read, instead of calling the id used", async () => {
    const retry = request();
    expect(await signatures.insertPending(retry)).toBe(true); // the earlier try, still PENDING
    // The earlier try gives up and removes its record just as the retry's insert conflicts with it.
    let removed = false;
    const racing: Pick<SignatureRepository, "insertPending" | "findById"> = {
      insertPending: async (input) => {
        const inserted = await signatures.insertPending(input);
        if (!inserted && !removed) removed = await signatures.deletePending(input, input);
        return inserted;
      },
      findById: (projectId, id) => signatures.findById(projectId, id),
    };

    expect(await claimSignatureId(racing, retry)).toEqual({ kind: "new" });
    expect(removed).toBe(true);
    expect((await signatures.findById(retry.projectId, retry.id))?.status).toBe("PENDING");
  });

  it("claims an id another project holds as new in this project, and refuses a reuse within this project only", async () => {
    const other = await createProjectFixture(db, testKek());
    const theirs = { id: randomUUID(), projectId: other.projectId, walletId: other.wallets[0]!.id, message: bytes("theirs") };
    expect(await claimSignatureId(signatures, theirs)).toEqual({ kind: "new" });
    expect(await signatures.markSigned(theirs, "0xtheirs", theirs)).toBe(true);

    const mine = request(theirs.id, "mine");
    expect(await claimSignatureId(signatures, mine)).toEqual({ kind: "new" });
    expect(await claimSignatureId(signatures, mine)).toEqual({ kind: "pending", waitedMs: expect.any(Number) });
    await expect(claimSignatureId(signatures, request(theirs.id, "theirs"))).rejects.toMatchObject({ code: "SIGNATURE_ERROR" });
    expect(await claimSignatureId(signatures, theirs)).toEqual({ kind: "signed", signature: "0xtheirs" });
  });
});
