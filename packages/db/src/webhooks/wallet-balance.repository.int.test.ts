import { randomBytes } from "node:crypto";
import { createFixture, type Fixture } from "../transactions/test-fixtures";
import type { WalletBalanceLowPayload } from "./wallet-balance-event";
import { webhookTestContext, type WebhookTestContext } from "./test-fixtures";

let ctx: WebhookTestContext;
let fixture: Fixture;
let wallet: string;

beforeAll(async () => {
  ctx = await webhookTestContext();
});

afterAll(() => ctx.close());

beforeEach(async () => {
  fixture = await createFixture(ctx.pool);
  wallet = fixture.wallets[0] as string;
});

const THRESHOLD = 10n ** 17n;

/** Each check reads a newer block than the one before, as checks in a row do. */
let block = 1;
const record = (balanceWei: bigint, address = wallet, blockNumber = block++) => ctx.balances.recordBalance(fixture.chainId, address, { balanceWei, blockNumber }, THRESHOLD);

interface EventRow {
  id: string;
  projectId: string;
  eventType: string;
  payload: WalletBalanceLowPayload;
  createdAt: Date;
}

async function lowBalanceEvents(projectId = fixture.projectId): Promise<EventRow[]> {
  const result = await ctx.pool.query<EventRow>(
    `SELECT id, project_id AS "projectId", event_type AS "eventType", payload, created_at AS "createdAt"
       FROM event WHERE project_id = $1 AND event_type = 'WalletBalanceLow' ORDER BY created_at, id`,
    [projectId],
  );
  return result.rows;
}

async function state(address = wallet) {
  const result = await ctx.pool.query(
    `SELECT low, balance_wei::text AS "balanceWei", checked_at AS "checkedAt" FROM wallet_balance_state WHERE chain_id = $1 AND address = $2`,
    [fixture.chainId.toString(), address],
  );
  return result.rows[0];
}

test("fires once per crossing below the threshold, and again only after the balance recovered", async () => {
  const crossings: boolean[] = [];
  for (const balance of [THRESHOLD * 3n, THRESHOLD - 1n, THRESHOLD / 2n, 0n, THRESHOLD, THRESHOLD * 2n, 5n, 5n]) {
    crossings.push((await record(balance)).crossedBelow);
  }

  // At the threshold is not low; the first check above it is not a crossing.
  expect(crossings).toEqual([false, true, false, false, false, false, true, false]);
  const events = await lowBalanceEvents();
  expect(events.map((e) => e.payload.data.balance)).toEqual([(THRESHOLD - 1n).toString(), "5"]);
  expect(await state()).toEqual({ low: true, balanceWei: "5", checkedAt: expect.any(Date) });
});

test("a check of an older block than the state's is not applied: no flip back, no second event for one crossing", async () => {
  expect((await record(THRESHOLD - 1n, wallet, 100)).crossedBelow).toBe(true);
  // A check that read block 99 (a cached read after a send) arrives after the scheduled one of 100.
  expect((await record(THRESHOLD * 2n, wallet, 99)).crossedBelow).toBe(false);
  expect(await state()).toMatchObject({ low: true, balanceWei: (THRESHOLD - 1n).toString() });
  expect((await record(THRESHOLD - 2n, wallet, 101)).crossedBelow).toBe(false);
  // The same block again is applied (it says the same); a newer one that recovered is too.
  expect((await record(THRESHOLD * 2n, wallet, 102)).crossedBelow).toBe(false);
  expect(await state()).toMatchObject({ low: false });
  expect(await lowBalanceEvents()).toHaveLength(1);
});

test("writes the event DESIGN.md specifies, stamped with the check's time", async () => {
  expect(await record(THRESHOLD - 123n)).toEqual({ crossedBelow: true });

  const [event, ...more] = await lowBalanceEvents();
  expect(more).toEqual([]);
  const checked = await state();
  expect(event).toEqual({
    id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    projectId: fixture.projectId,
    eventType: "WalletBalanceLow",
    createdAt: checked?.checkedAt,
    payload: {
      id: event?.id,
      eventType: "WalletBalanceLow",
      projectId: fixture.projectId,
      createdAt: (checked?.checkedAt as Date).toISOString(),
      data: {
        walletAddress: wallet,
        chainId: Number(fixture.chainId),
        balance: (THRESHOLD - 123n).toString(),
        threshold: THRESHOLD.toString(),
      },
    },
  });
});

test("the first check of a wallet already below the threshold is a crossing; wei beyond 2^64 survive", async () => {
  const huge = 2n ** 200n;

  expect((await ctx.balances.recordBalance(fixture.chainId, wallet, { balanceWei: huge - 1n, blockNumber: 1 }, huge)).crossedBelow).toBe(true);

  expect((await lowBalanceEvents())[0]?.payload.data).toMatchObject({ balance: (huge - 1n).toString(), threshold: huge.toString() });
});

test("concurrent checks of one crossing fire once, whether or not the wallet had a state yet", async () => {
  const fresh = await Promise.all(Array.from({ length: 10 }, () => record(1n, wallet, 1_000)));
  expect(fresh.filter((r) => r.crossedBelow)).toHaveLength(1);

  await record(THRESHOLD, wallet, 1_001);
  const known = await Promise.all(Array.from({ length: 10 }, () => record(2n, wallet, 1_002)));
  expect(known.filter((r) => r.crossedBelow)).toHaveLength(1);

  expect(await lowBalanceEvents()).toHaveLength(2);
});

test("wallets and chains are tracked apart; a wallet no project owns gets a state but no event", async () => {
  const [other] = (await createFixture(ctx.pool)).wallets as [string];
  const stranger = `0x${randomBytes(20).toString("hex")}`;

  expect((await record(1n)).crossedBelow).toBe(true);
  expect((await record(1n, stranger)).crossedBelow).toBe(true);
  expect((await ctx.balances.recordBalance(fixture.chainId, other, { balanceWei: 1n, blockNumber: 1 }, THRESHOLD)).crossedBelow).toBe(true);

  expect(await lowBalanceEvents()).toHaveLength(1);
  expect(await state(stranger)).toMatchObject({ low: true });
  const strangers = await ctx.pool.query(`SELECT 1 FROM event WHERE payload -> 'data' ->> 'walletAddress' = $1`, [stranger]);
  expect(strangers.rowCount).toBe(0);
});
