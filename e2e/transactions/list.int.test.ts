import { randomInt, randomUUID } from "node:crypto";
import { createPool } from "@relay/db";
import {
  addChain,
  createProjectFixture,
  fund,
  setOrderCall,
  startRecorderChain,
  testDatabaseUrl,
  waitForStatus,
  type ProjectFixture,
  type RecorderChain,
} from "@relay/testing";
import { sendTransaction, startHarness, type Harness } from "../support/harness";

type Pool = ReturnType<typeof createPool>;

/** Part A's port range (18500-18599): anvil on a fixed port of it. */
const ANVIL_PORT = 18_519;
const BULK = 1_000;
const FINAL_STATUSES = ["CONFIRMED", "REVERTED", "INVALID", "FAILED"] as const;

interface Item {
  transactionId: string;
  projectId: string;
  chainId: number;
  status: string;
  from: string | null;
  hash: string | null;
  blockNumber: string | null;
  createdAt: string;
  receipt: null | { blockNumber: string | null; blockHash: string; gasUsed: string; effectiveGasPrice: string | null; l1Fee: string | null; fee: string | null; logCount: number };
  history?: unknown;
  attempts?: unknown;
}
interface Page {
  transactions: Item[];
  nextCursor: string | null;
  message?: string;
}
interface Row {
  id: string;
  status: string;
  chainId: number;
  from: string | null;
  createdAt: Date;
}

describe("GET /transact/project/{projectId}/transactions, and receipts in the reads", () => {
  let h: Harness;
  let chain: RecorderChain;
  let pool: Pool;
  let a: ProjectFixture;
  let b: ProjectFixture;
  let c: ProjectFixture;
  /** A chain id no worker serves: rows on it are only ever written by this test. */
  const otherChainId = randomInt(1_000_000, 2 ** 40) * 1000 + 519;
  /** Project A's bulk rows start here and go back one second per three rows (ties included). */
  const newest = new Date(Date.now() - 3_600_000);

  const get = async (path: string, apiKey: string) => {
    const res = await fetch(h.baseUrl + path, { headers: { authorization: `Bearer ${apiKey}` } });
    return { status: res.status, body: (await res.json()) as Page };
  };
  const list = (project: ProjectFixture, query = "", apiKey = project.apiKey) => get(`/transact/project/${project.projectId}/transactions${query}`, apiKey);

  /** Every page of a query, following nextCursor; `between` runs after each page. */
  const allPages = async (project: ProjectFixture, query: string, between?: () => Promise<void>) => {
    const items: Item[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const sep = query ? "&" : "?";
      const res = await list(project, cursor === null ? query : `${query}${sep}cursor=${encodeURIComponent(cursor)}`);
      expect(res.status).toBe(200);
      items.push(...res.body.transactions);
      cursor = res.body.nextCursor;
      pages++;
      await between?.();
    } while (cursor !== null && pages < 1_000);
    return { items, pages };
  };

  /** Project A's calls as the table has them (the list's expectations are computed from these in JS). */
  const rowsOf = async (projectId: string): Promise<Row[]> =>
    (
      await pool.query<Row>(
        `SELECT id, status::text AS status, chain_id::text AS "chainId", from_address AS "from", created_at AS "createdAt"
           FROM transaction WHERE project_id = $1 AND kind = 'CALL'`,
        [projectId],
      )
    ).rows.map((r) => ({ ...r, chainId: Number(r.chainId) }));
  // (Bulk rows: CONFIRMED, REVERTED, INVALID, FAILED by i % 4; the other chain when i % 3 = 0;
  // no wallet when i % 4 = 2, else wallet i % 2: REVERTED rows are wallet 1's, CONFIRMED wallet 0's.)
  /** Newest first by (createdAt, id), as the list orders. */
  const newestFirst = (rows: Row[]) =>
    [...rows].sort((x, y) => y.createdAt.getTime() - x.createdAt.getTime() || (y.id < x.id ? -1 : y.id > x.id ? 1 : 0)).map((r) => r.id);

  /** `count` rows of `project` straight into the table, in final statuses (no worker ever picks them up). */
  const insertRows = async (project: ProjectFixture, count: number, from: Date) => {
    await pool.query(
      `INSERT INTO transaction (project_id, id, chain_id, contract_address, function_signature, args, calldata, status, from_address, created_at, updated_at)
       SELECT $1, gen_random_uuid(), CASE WHEN i % 3 = 0 THEN $2::bigint ELSE $3::bigint END, $4, 'ping()', '{}'::jsonb, '\\x5c36b186'::bytea,
              ($5::text[])[1 + i % 4]::"TransactionStatus",
              CASE WHEN i % 4 = 2 THEN NULL ELSE ($6::text[])[1 + i % 2] END,
              $7::timestamptz - (i / 3) * interval '1 second', now()
         FROM generate_series(0, $8::int - 1) AS i`,
      [project.projectId, otherChainId, chain.anvil.chainId, chain.recorder.address, FINAL_STATUSES, project.wallets.map((w) => w.address), from, count],
    );
  };

  const sendAndSettle = async (project: ProjectFixture, n: number) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const res = await sendTransaction(h.baseUrl, project, { chainId: chain.anvil.chainId, contractAddress: chain.recorder.address, ...setOrderCall(i + 1, project.wallets[0]!.address) });
      expect(res.status).toBe(200);
      ids.push(res.body.transactionId as string);
    }
    for (const id of ids) await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id);
    return ids;
  };

  beforeAll(async () => {
    chain = await startRecorderChain({ chainId: 31_519, port: ANVIL_PORT });
    h = await startHarness("tx-list");
    pool = createPool({ url: testDatabaseUrl() });
    await addChain(h.db, chain.anvil);
    await pool.query(`INSERT INTO chain (chain_id, name, rpc_urls) VALUES ($1, $2, $3)`, [otherChainId, `list-test-${otherChainId}`, ["http://127.0.0.1:1"]]);
    [a, b, c] = [
      await createProjectFixture(h.db, h.kek, { wallets: 2 }),
      await createProjectFixture(h.db, h.kek, { wallets: 1 }),
      await createProjectFixture(h.db, h.kek, { wallets: 1 }),
    ];
    await fund(chain.anvil.rpcUrl, [...a.wallets, ...b.wallets, ...c.wallets].map((w) => w.address));
    await h.startTxWorker();
    await insertRows(a, BULK - 10, newest);
    await insertRows(b, 30, newest);
    // A top-up of A's wallet: a transaction of A, but of kind FUNDING, listed by the funding read only.
    await pool.query(
      `INSERT INTO transaction (project_id, id, chain_id, contract_address, function_signature, args, calldata, status, kind)
       VALUES ($1, $2, $3, $4, '', '{}'::jsonb, ''::bytea, 'CONFIRMED', 'FUNDING')`,
      [a.projectId, randomUUID(), chain.anvil.chainId, a.wallets[0]!.address],
    );
    await sendAndSettle(a, 10); // and ten through the API: 1,000 calls in all
  }, 120_000);
  afterAll(async () => {
    await pool?.end();
    await h?.close();
    await chain?.stop();
  });

  it("pages through 1,000 transactions newest first, each seen exactly once while new ones arrive", async () => {
    const before = await rowsOf(a.projectId);
    expect(before).toHaveLength(BULK);
    const arrived: string[] = [];
    let round = 0;
    const { items, pages } = await allPages(a, "?limit=37", async () => {
      // New rows between pages: through the API, and straight into the table (newer than every row listed).
      round++;
      if (round % 4 === 1) {
        const res = await sendTransaction(h.baseUrl, a, { chainId: chain.anvil.chainId, contractAddress: chain.recorder.address, ...setOrderCall(1_000 + round, a.wallets[0]!.address) });
        arrived.push(res.body.transactionId as string);
      } else {
        const id = randomUUID();
        await pool.query(
          `INSERT INTO transaction (project_id, id, chain_id, contract_address, function_signature, args, calldata, status) VALUES ($1, $2, $3, $4, 'ping()', '{}', '\\x5c36b186', 'INVALID')`,
          [a.projectId, id, otherChainId, chain.recorder.address],
        );
        arrived.push(id);
      }
    });
    expect(pages).toBe(Math.ceil(BULK / 37));
    const seen = items.map((i) => i.transactionId);
    expect(seen).toEqual(newestFirst(before)); // every row once, in order, none of the new ones
    expect(new Set(seen).size).toBe(BULK);
    expect(arrived.length).toBeGreaterThan(20);
    // Items are the read's fields without history and attempts.
    expect(items[0]).not.toHaveProperty("history");
    expect(items[0]).not.toHaveProperty("attempts");
    expect(items.every((i) => i.projectId === a.projectId)).toBe(true);
    // The new ones are there on a fresh first page.
    const fresh = await allPages(a, "?limit=100");
    expect(fresh.items.map((i) => i.transactionId)).toEqual(expect.arrayContaining(arrived));
    expect(fresh.items).toHaveLength(BULK + arrived.length);
    for (const id of arrived) await waitForStatus(h.baseUrl, a.apiKey, a.projectId, id);
  }, 120_000);

  it("narrows by status (one or several), chain, wallet and creation time, alone and together", async () => {
    const rows = await rowsOf(a.projectId);
    const wallet = a.wallets[1]!.address;
    const after = new Date(newest.getTime() - 100_000);
    const before = new Date(newest.getTime() - 20_000);
    const cases: [string, (r: Row) => boolean][] = [
      ["?status=REVERTED", (r) => r.status === "REVERTED"],
      ["?status=CONFIRMED&status=FAILED", (r) => r.status === "CONFIRMED" || r.status === "FAILED"],
      ["?status=CONFIRMED,INVALID", (r) => r.status === "CONFIRMED" || r.status === "INVALID"],
      [`?chainId=${otherChainId}`, (r) => r.chainId === otherChainId],
      [`?chainId=${chain.anvil.chainId}`, (r) => r.chainId === chain.anvil.chainId],
      [`?fromAddress=${wallet.toLowerCase()}`, (r) => r.from?.toLowerCase() === wallet.toLowerCase()],
      [`?createdAfter=${after.toISOString()}`, (r) => r.createdAt >= after],
      [`?createdBefore=${encodeURIComponent(before.toISOString().replace("Z", "+00:00"))}`, (r) => r.createdAt < before],
      [
        `?status=REVERTED&chainId=${chain.anvil.chainId}&fromAddress=${wallet}&createdAfter=${after.toISOString()}&createdBefore=${before.toISOString()}`,
        (r) => r.status === "REVERTED" && r.chainId === chain.anvil.chainId && r.from?.toLowerCase() === wallet.toLowerCase() && r.createdAt >= after && r.createdAt < before,
      ],
    ];
    for (const [query, keep] of cases) {
      const expected = newestFirst(rows.filter(keep));
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.length).toBeLessThan(rows.length);
      const { items } = await allPages(a, `${query}&limit=100`);
      expect([query, items.map((i) => i.transactionId)]).toEqual([query, expected]);
    }
    // A status nobody is in: an empty last page.
    expect((await list(a, "?status=PAUSED")).body).toEqual({ transactions: [], nextCursor: null });
  }, 60_000);

  it("answers 400 naming the parameter for bad values, an altered cursor and another project's cursor", async () => {
    const first = await list(a, "?limit=2");
    const cursor = first.body.nextCursor!;
    const altered = Buffer.from(Buffer.from(cursor, "base64url").toString("utf8").replace(/\|(\d)/, (_m, d: string) => `|${(Number(d) + 1) % 10}`)).toString("base64url");
    const fromB = (await list(b, "?limit=2")).body.nextCursor!;
    const cases: [string, RegExp][] = [
      ["?status=DONE", /^status/],
      ["?status=confirmed", /^status/],
      ["?chainId=abc", /^chainId/],
      ["?chainId=0", /^chainId/],
      ["?chainId=99999999999999999999", /^chainId/],
      ["?fromAddress=0x12", /^fromAddress/],
      ["?createdAfter=yesterday", /^createdAfter/],
      ["?createdBefore=2026-11-26T16:00:00", /^createdBefore/],
      ["?limit=0", /^limit/],
      ["?limit=101", /^limit/],
      ["?limit=ten", /^limit/],
      ["?limit=5&limit=6", /^limit/],
      ["?cursor=not-a-cursor", /^cursor is not one this list returned/],
      [`?cursor=${altered}`, /^cursor is not one this list returned/],
      [`?cursor=${cursor.slice(0, -2)}`, /^cursor is not one this list returned/],
      [`?cursor=${fromB}`, /^cursor belongs to another project's list$/],
      ["?page=2", /unknown field\(s\) "page"/],
    ];
    for (const [query, message] of cases) {
      const res = await list(a, query);
      expect([query, res.status, res.body.message]).toEqual([query, 400, expect.stringMatching(message)]);
    }
    expect((await get(`/transact/project/not-a-uuid/transactions`, a.apiKey)).body.message).toMatch(/^projectId/);
  });

  it("lists only the project's own calls: another project's key is 403, its rows and top-ups never appear", async () => {
    const denied = await list(a, "", b.apiKey);
    expect([denied.status, denied.body.message]).toEqual([403, `This API key does not belong to project ${a.projectId}`]);
    const ofB = await allPages(b, "?limit=100");
    expect(ofB.items.map((i) => i.transactionId).sort()).toEqual((await rowsOf(b.projectId)).map((r) => r.id).sort());
    expect(ofB.items.every((i) => i.projectId === b.projectId)).toBe(true);
    const topUps = await pool.query<{ id: string }>(`SELECT id FROM transaction WHERE project_id = $1 AND kind = 'FUNDING'`, [a.projectId]);
    expect(topUps.rows).toHaveLength(1);
    const ofA = await allPages(a, "?limit=100");
    expect(ofA.items.map((i) => i.transactionId)).not.toContain(topUps.rows[0]!.id);
  });

  describe("receipts", () => {
    interface NodeReceipt {
      status: string;
      blockNumber: string;
      blockHash: string;
      gasUsed: string;
      effectiveGasPrice: string;
      logs: unknown[];
      from: string;
    }
    const nodeReceipt = (hash: string) => chain.recorder.provider.send("eth_getTransactionReceipt", [hash]) as Promise<NodeReceipt>;
    const read = async (project: ProjectFixture, id: string) => (await get(`/transact/project/${project.projectId}/transactions/${id}`, project.apiKey)).body as unknown as Item;
    const expectedReceipt = (node: NodeReceipt) => ({
      blockNumber: BigInt(node.blockNumber).toString(),
      blockHash: node.blockHash.toLowerCase(),
      gasUsed: BigInt(node.gasUsed).toString(),
      effectiveGasPrice: BigInt(node.effectiveGasPrice).toString(),
      l1Fee: null, // anvil reports no L1 fee
      fee: (BigInt(node.gasUsed) * BigInt(node.effectiveGasPrice)).toString(),
      logCount: node.logs.length,
    });
    /** The receipt as the list shows it: the same as the read's. */
    const listed = async (project: ProjectFixture, id: string) => (await allPages(project, "?limit=100")).items.find((i) => i.transactionId === id);

    it("a confirmed transaction's receipt equals the node's, and its fee is what the wallet paid", async () => {
      const [id] = await sendAndSettle(c, 1);
      const tx = await read(c, id!);
      expect(tx.status).toBe("CONFIRMED");
      const node = await nodeReceipt(tx.hash!);
      expect(node.status).toBe("0x1");
      expect(node.logs.length).toBe(1); // OrderSet
      expect(tx.receipt).toEqual(expectedReceipt(node));
      expect(tx.receipt!.blockNumber).toBe(tx.blockNumber);
      expect((await listed(c, id!))?.receipt).toEqual(tx.receipt);
      // The wallet's balance fell by exactly the fee (value 0; its only transaction in that block).
      const block = Number(node.blockNumber);
      const wallet = tx.from!;
      const drop = (await chain.recorder.provider.getBalance(wallet, block - 1)) - (await chain.recorder.provider.getBalance(wallet, block));
      expect(drop.toString()).toBe(tx.receipt!.fee);
    });

    it("a reverted transaction's receipt equals the node's; transactions that never mined have none", async () => {
      const rpc = chain.recorder.provider;
      await rpc.send("evm_setAutomine", [false]);
      try {
        const res = await sendTransaction(h.baseUrl, c, { chainId: chain.anvil.chainId, contractAddress: chain.recorder.address, functionSignature: "revertsWhenMined(uint256 x)", args: { x: 3 } });
        const id = res.body.transactionId as string;
        const submitted = await waitForStatus(h.baseUrl, c.apiKey, c.projectId, id, ["SUBMITTED"]);
        expect((submitted as unknown as Item).receipt).toBeNull(); // not final yet
        await rpc.send("anvil_setStorageAt", [chain.recorder.address, "0x0", `0x${"0".repeat(63)}1`]);
        await rpc.send("evm_mine", []);
        await waitForStatus(h.baseUrl, c.apiKey, c.projectId, id);
        const tx = await read(c, id);
        expect(tx.status).toBe("REVERTED");
        const node = await nodeReceipt(tx.hash!);
        expect(node.status).toBe("0x0");
        expect(tx.receipt).toEqual(expectedReceipt(node));
        expect((await listed(c, id))?.receipt).toEqual(tx.receipt);
      } finally {
        await rpc.send("anvil_setStorageAt", [chain.recorder.address, "0x0", `0x${"0".repeat(64)}`]);
        await rpc.send("evm_setAutomine", [true]);
      }
      // A's bulk rows never mined through the relay: no receipt, whatever their status.
      const page = await list(a, `?chainId=${otherChainId}&limit=10`);
      expect(page.body.transactions.map((i) => i.receipt)).toEqual(Array(10).fill(null));
    });
  });
});
