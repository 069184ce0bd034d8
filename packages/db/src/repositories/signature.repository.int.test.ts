import { randomUUID } from "node:crypto";
import { createPool, createDatabase } from "../client";
import { testDatabasePooler } from "@relay/config";
import { createSignatureRepository } from "./signature.repository";
import { createProjectFixture, testDatabaseUrl, testKek } from "@relay/testing";

const pool = createPool({ url: testDatabaseUrl(), poolSize: 4, pooler: testDatabasePooler() });
const db = createDatabase({ pool });
const signatures = createSignatureRepository(pool, { coalesce: { maxBatchSize: 50, maxInFlight: 1 } });
const text = (s: string) => new TextEncoder().encode(s);

afterAll(async () => {
  await db.$disconnect();
  if (!pool.ended) await pool.end();
});

describe("signature repository, coalesced", () => {
  test("concurrent inserts, reads and updates share statements; each call gets its own answer, a repeated id counts once", async () => {
    const project = await createProjectFixture(db, testKek());
    const walletId = project.wallets[0]!.id;
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    const key = (id: string) => ({ projectId: project.projectId, id });
    const request = (id: string, message: string) => ({ id, projectId: project.projectId, walletId, message: text(message) });

    // b is sent twice in one batch: only the first insert wins.
    const inserted = await Promise.all([request(a, "one"), request(b, "two"), request(b, "other"), request(c, "ñ ✓ \u0000")].map((r) => signatures.insertPending(r)));
    expect(inserted).toEqual([true, true, false, true]);

    const unknown = randomUUID();
    const found = await Promise.all([c, unknown, a, b].map((id) => signatures.findForSigning(key(id))));
    expect(found.map((f) => f && [f.status, new TextDecoder().decode(f.message), f.walletId])).toEqual([
      ["PENDING", "ñ ✓ \u0000", walletId],
      null,
      ["PENDING", "one", walletId],
      ["PENDING", "two", walletId],
    ]);

    const marked = await Promise.all([
      signatures.markSigned(key(a), "0xaa", { walletId, message: text("one") }),
      signatures.markSigned(key(b), "0xbb", { walletId, message: text("two") }),
      signatures.markSigned(key(b), "0xbb", { walletId, message: text("two") }),
      signatures.markSigned(key(unknown), "0xcc", { walletId, message: text("x") }),
    ]);
    expect(marked).toEqual([true, true, false, false]);
    expect((await signatures.findById(project.projectId, b))?.signature).toBe("0xbb");
    expect((await signatures.findById(project.projectId, c))?.status).toBe("PENDING");
    expect(await signatures.markSigned(key(a), "0xdd", { walletId, message: text("one") })).toBe(false);
    expect((await signatures.findById(project.projectId, a))?.signature).toBe("0xaa");
  });

  test("a signature or a removal for one request does not land on another request stored under the same id since", async () => {
    const project = await createProjectFixture(db, testKek(), { wallets: 2 });
    const [w0, w1] = [project.wallets[0]!.id, project.wallets[1]!.id];
    const id = randomUUID();
    const key = { projectId: project.projectId, id };
    expect(await signatures.insertPending({ id, projectId: project.projectId, walletId: w1, message: text("second message") })).toBe(true);

    // Signed or given up for the first request (wallet 0, "first message"), which held the id before.
    expect(await signatures.markSigned(key, "0xfirst", { walletId: w0, message: text("first message") })).toBe(false);
    expect(await signatures.markSigned(key, "0xfirst", { walletId: w1, message: text("first message") })).toBe(false);
    expect(await signatures.deletePending(key, { walletId: w0, message: text("second message") })).toBe(false);
    expect(await signatures.findById(project.projectId, id)).toMatchObject({ status: "PENDING", signature: null, walletId: w1 });

    expect(await signatures.markSigned(key, "0xsecond", { walletId: w1, message: text("second message") })).toBe(true);
    expect((await signatures.findById(project.projectId, id))?.signature).toBe("0xsecond");
  });

  test("a signatureId is per project: two projects store, read, sign and remove their own records under one id", async () => {
    const [p, q] = [await createProjectFixture(db, testKek()), await createProjectFixture(db, testKek())];
    const id = randomUUID();
    const [pKey, qKey] = [{ projectId: p.projectId, id }, { projectId: q.projectId, id }];
    const [pContent, qContent] = [{ walletId: p.wallets[0]!.id, message: text("p's") }, { walletId: q.wallets[0]!.id, message: text("q's") }];

    // In one coalesced statement, and again: each project's first insert stores, its repeat does not.
    const inserted = await Promise.all([
      signatures.insertPending({ ...pKey, ...pContent }),
      signatures.insertPending({ ...qKey, ...qContent }),
      signatures.insertPending({ ...qKey, ...qContent }),
    ]);
    expect(inserted).toEqual([true, true, false]);
    expect(await signatures.insertPending({ ...pKey, ...pContent })).toBe(false);

    const found = await Promise.all([signatures.findForSigning(pKey), signatures.findForSigning(qKey)]);
    expect(found.map((f) => f?.walletId)).toEqual([pContent.walletId, qContent.walletId]);
    expect(await signatures.findById(q.projectId, id)).toMatchObject({ projectId: q.projectId, walletId: qContent.walletId, signerAddress: q.wallets[0]!.address });
    expect(await signatures.findProjectIds([id])).toEqual(new Map([[id, expect.arrayContaining([p.projectId, q.projectId])]]));

    expect(await Promise.all([signatures.markSigned(pKey, "0xp", pContent), signatures.markSigned(qKey, "0xq", pContent)])).toEqual([true, false]);
    expect(await signatures.deletePending(pKey, qContent)).toBe(false);
    expect(await signatures.deletePending(qKey, qContent)).toBe(true);
    expect(await signatures.findById(p.projectId, id)).toMatchObject({ status: "SIGNED", signature: "0xp" });
    expect(await signatures.findById(q.projectId, id)).toBeNull();
  });

  test("a request is not signed past its window from the insert, so one answered 500 on a time-out is removed, not left signed", async () => {
    const project = await createProjectFixture(db, testKek());
    const walletId = project.wallets[0]!.id;
    const content = { walletId, message: text("late") };
    const late = { projectId: project.projectId, id: randomUUID() };
    expect(await signatures.insertPending({ ...late, ...content })).toBe(true);
    await new Promise((r) => setTimeout(r, 150));
    // The worker got to it after its gateway stopped waiting (Postgres frozen meanwhile, say).
    expect(await signatures.markSigned(late, "0xlate", content, 50)).toBe(false);
    expect((await signatures.findById(late.projectId, late.id))?.status).toBe("PENDING");
    expect(await signatures.deletePending(late, content)).toBe(true);

    // Within its window, or without one (a job of an earlier gateway), it is signed.
    const inTime = { projectId: project.projectId, id: randomUUID() };
    expect(await signatures.insertPending({ ...inTime, ...content })).toBe(true);
    expect(await signatures.markSigned(inTime, "0xin", content, 60_000)).toBe(true);
    const unlimited = { projectId: project.projectId, id: randomUUID() };
    expect(await signatures.insertPending({ ...unlimited, ...content })).toBe(true);
    await new Promise((r) => setTimeout(r, 150));
    expect(await signatures.markSigned(unlimited, "0xany", content)).toBe(true);
  });

  test("a read says how long a request has waited, in the database's time", async () => {
    const project = await createProjectFixture(db, testKek());
    const key = { projectId: project.projectId, id: randomUUID() };
    expect(await signatures.insertPending({ ...key, walletId: project.wallets[0]!.id, message: text("w") })).toBe(true);
    await new Promise((r) => setTimeout(r, 120));
    const record = (await signatures.findById(key.projectId, key.id))!;
    expect(record.readAt.getTime() - record.createdAt.getTime()).toBeGreaterThanOrEqual(100);
  });
});
