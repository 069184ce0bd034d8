import { randomBytes, randomUUID } from "node:crypto";
import { open, seal } from "@relay/secrets";
import { createFixture, newTransaction, type Fixture } from "../transactions/test-fixtures";
import { register, secretAad, testKek, webhookTestContext, type WebhookTestContext } from "./test-fixtures";
import { DELETED_REASON } from "./event-callback.repository";

let ctx: WebhookTestContext;
const kek = testKek();
let fixture: Fixture;

beforeAll(async () => {
  ctx = await webhookTestContext();
});

afterAll(() => ctx.close());

beforeEach(async () => {
  fixture = await createFixture(ctx.pool);
});

const storedSecret = async (id: string): Promise<string | undefined> =>
  (await ctx.pool.query<{ s: string }>(`SELECT encrypted_secret AS s FROM event_callback WHERE id = $1`, [id])).rows[0]?.s;

describe("create", () => {
  test("stores the secret sealed for the registration's own id, and returns the record without it", async () => {
    const secret = `whsec_${randomBytes(32).toString("base64")}`;
    let sealedFor: string | undefined;

    const created = await ctx.callbacks.create({
      projectId: fixture.projectId,
      callbackUrl: "https://receiver.example/events",
      eventType: "TransactionStatusChange",
      sealSecret: (id) => {
        sealedFor = id;
        return seal(kek, Buffer.from(secret), secretAad(id));
      },
    });

    expect(created).toEqual({
      id: sealedFor,
      projectId: fixture.projectId,
      callbackUrl: "https://receiver.example/events",
      eventType: "TransactionStatusChange",
      createdAt: expect.any(Date),
      disabledAt: null,
      disabledReason: null,
    });
    const stored = (await storedSecret(created.id)) as string;
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(Buffer.from(secret).toString("base64url"));
    expect(open(kek, stored, secretAad(created.id)).toString()).toBe(secret);
    // Sealed for this record only: copied to another registration it does not open.
    expect(() => open(kek, stored, secretAad(randomUUID()))).toThrow(/failed authentication/);
    expect(await ctx.callbacks.findById(created.id)).toEqual(created);
    expect(await ctx.callbacks.findWithSecret(created.id)).toEqual({ ...created, encryptedSecret: stored });
    expect(await ctx.callbacks.findById(randomUUID())).toBeNull();
  });
});

describe("replaceSecret", () => {
  test("seals a new secret for the same record; a disabled registration keeps its own", async () => {
    const registration = await register(ctx, kek, { projectId: fixture.projectId, eventType: "WalletBalanceLow", secret: "whsec_old" });

    expect(await ctx.callbacks.replaceSecret(registration.id, (id) => seal(kek, Buffer.from("whsec_new"), secretAad(id)))).toBe(true);
    expect(open(kek, (await storedSecret(registration.id)) as string, secretAad(registration.id)).toString()).toBe("whsec_new");

    await ctx.callbacks.disable(registration.id, "410 Gone");
    expect(await ctx.callbacks.replaceSecret(registration.id, (id) => seal(kek, Buffer.from("whsec_newer"), secretAad(id)))).toBe(false);
    expect(open(kek, (await storedSecret(registration.id)) as string, secretAad(registration.id)).toString()).toBe("whsec_new");
    expect(await ctx.callbacks.replaceSecret(randomUUID(), () => "unused")).toBe(false);
  });
});

describe("disable and delete", () => {
  test("disabling keeps the first reason and abandons the registration's PENDING deliveries", async () => {
    const registration = await register(ctx, kek, { projectId: fixture.projectId, eventType: "TransactionStatusChange" });
    const other = await register(ctx, kek, { projectId: fixture.projectId, eventType: "TransactionStatusChange" });
    await ctx.transactions.create(newTransaction(fixture));
    const deliveries = await ctx.drain();
    expect(deliveries).toHaveLength(2);

    expect(await ctx.callbacks.disable(registration.id, "410 Gone")).toBe(true);
    expect(await ctx.callbacks.disable(registration.id, "something else")).toBe(false);

    expect(await ctx.callbacks.findById(registration.id)).toMatchObject({ disabledAt: expect.any(Date), disabledReason: "410 Gone" });
    const statuses = await Promise.all(deliveries.map(async (d) => [d.eventCallbackId, (await ctx.deliveries.findForDelivery(d.id))?.delivery.status]));
    expect(new Map(statuses as Array<[string, string]>)).toEqual(
      new Map([
        [registration.id, "ABANDONED"],
        [other.id, "PENDING"],
      ]),
    );
  });

  test("delete hides the registration from the list, even one disabled before; twice is false", async () => {
    const kept = await register(ctx, kek, { projectId: fixture.projectId, eventType: "TransactionStatusChange" });
    const gone = await register(ctx, kek, { projectId: fixture.projectId, eventType: "TransactionStatusChange" });
    const deleted = await register(ctx, kek, { projectId: fixture.projectId, eventType: "WalletBalanceLow" });
    const disabledThenDeleted = await register(ctx, kek, { projectId: fixture.projectId, eventType: "WalletBalanceLow" });
    await ctx.callbacks.disable(gone.id, "410 Gone");
    await ctx.callbacks.disable(disabledThenDeleted.id, "410 Gone");

    expect(await ctx.callbacks.delete(deleted.id)).toBe(true);
    expect(await ctx.callbacks.delete(disabledThenDeleted.id)).toBe(true);
    expect(await ctx.callbacks.delete(deleted.id)).toBe(false);
    expect(await ctx.callbacks.delete(randomUUID())).toBe(false);

    const listed = await ctx.callbacks.listByProject(fixture.projectId, { recentStats: 5 });
    expect(listed.map((r) => [r.id, r.disabledReason])).toEqual([
      [kept.id, null],
      [gone.id, "410 Gone"],
    ]);
    expect(await ctx.callbacks.findById(disabledThenDeleted.id)).toMatchObject({ disabledReason: DELETED_REASON });
  });
});

describe("listByProject", () => {
  test("lists the project's registrations, oldest first, each with its N most recent stats entries, newest first", async () => {
    const busy = await register(ctx, kek, { projectId: fixture.projectId, eventType: "TransactionStatusChange" });
    const quiet = await register(ctx, kek, { projectId: fixture.projectId, eventType: "WalletBalanceLow" });
    const elsewhere = await createFixture(ctx.pool);
    await register(ctx, kek, { projectId: elsewhere.projectId, eventType: "TransactionStatusChange" });
    await ctx.transactions.create(newTransaction(fixture));
    const [delivery] = await ctx.drain();
    for (const responseStatus of [500, 502, 503, 504]) {
      const next = { status: "PENDING" as const, nextAttemptAt: new Date() };
      await ctx.deliveries.recordAttempt(delivery?.id as string, { responseStatus, data: { durationMs: 1 }, next });
    }

    const listed = await ctx.callbacks.listByProject(fixture.projectId, { recentStats: 3 });

    expect(listed.map((r) => r.id)).toEqual([busy.id, quiet.id]);
    expect(listed[0]).toEqual({ ...busy, stats: expect.any(Array) });
    expect(listed[0]?.stats.map((s) => [s.responseStatus, (s.data as { attempt: number }).attempt])).toEqual([
      [504, 4],
      [503, 3],
      [502, 2],
    ]);
    expect(listed[0]?.stats[0]).toEqual({
      id: expect.any(BigInt),
      eventCallbackId: busy.id,
      deliveryId: delivery?.id,
      createdAt: expect.any(Date),
      data: { eventId: delivery?.eventId, deliveryId: delivery?.id, attempt: 4, durationMs: 1 },
      responseStatus: 504,
    });
    expect(listed[1]?.stats).toEqual([]);
    expect((await ctx.callbacks.listByProject(fixture.projectId, { recentStats: 0 })).map((r) => r.stats)).toEqual([[], []]);
    expect(await ctx.callbacks.listByProject(randomUUID(), { recentStats: 3 })).toEqual([]);
  });
});
