import { randomUUID } from "node:crypto";
import { Contract, JsonRpcProvider } from "ethers";
import { createProjectFixture, deployRecorder, startAnvil, type AnvilInstance, type ProjectFixture } from "@relay/testing";
import { post, startHarness, type Harness } from "../support/harness";
import { addChain, fund, readTransaction, waitForStatus } from "@relay/testing";

describe("sendTransaction to finality on anvil", () => {
  let h: Harness;
  let anvil: AnvilInstance;
  let recorder: { address: string; contract: Contract; provider: JsonRpcProvider };
  let project: ProjectFixture;
  const owner = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
  const tag = `0x${"ab".repeat(32)}`;

  const send = (body: Record<string, unknown>, apiKey = project.apiKey) =>
    post(h.baseUrl, "/transact/sendTransaction", { projectId: project.projectId, chainId: anvil.chainId, contractAddress: recorder.address, ...body }, apiKey);
  const sendAndWait = async (body: Record<string, unknown>) => {
    const res = await send(body);
    expect(res.status).toBe(200);
    return waitForStatus(h.baseUrl, project.apiKey, project.projectId, res.body.transactionId as string);
  };

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 31_001 });
    recorder = await deployRecorder(anvil.rpcUrl);
    h = await startHarness("send-tx");
    await addChain(h.db, anvil);
    project = await createProjectFixture(h.db, h.kek, { wallets: 2 });
    await fund(anvil.rpcUrl, project.wallets.map((w) => w.address));
    await h.startTxWorker();
  });
  afterAll(async () => {
    await h.close();
    recorder.provider.destroy();
    await anvil.stop();
  });

  it("confirms a call with a named tuple given by name, and the contract stores the args", async () => {
    const tx = await sendAndWait({
      functionSignature: "function setOrder((uint256 id, address owner, uint8[] flags) order)",
      args: { order: { id: "42", owner: owner.toLowerCase(), flags: [1, 2, 255] } },
    });
    expect(tx.status).toBe("CONFIRMED");
    expect(tx.history.map((c) => c.status)).toEqual(["PENDING", "SUBMITTED", "CONFIRMED"]);
    const order = await recorder.contract.getFunction("lastOrder")();
    expect([order.id, order.owner, order.flags.map(Number)]).toEqual([42n, owner, [1, 2, 255]]);
  });

  it("confirms a nested tuple given by index", async () => {
    const tx = await sendAndWait({
      functionSignature: "setDoc((uint256 id, (address author, bytes32 tag) meta, string title) doc, uint256 version)",
      args: { "0": { id: 7, meta: { author: owner, tag }, title: "héllo ✓" }, "1": "3" },
    });
    expect(tx.status).toBe("CONFIRMED");
    const doc = await recorder.contract.getFunction("docs")(7);
    expect([doc.id, doc.meta.author, doc.meta.tag, doc.title]).toEqual([7n, owner, tag, "héllo ✓"]);
  });

  it("confirms an array of tuples", async () => {
    const transfers = [
      { to: owner, amount: "1" },
      { to: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", amount: "340282366920938463463374607431768211455" },
    ];
    const tx = await sendAndWait({ functionSignature: "setTransfers((address to, uint256 amount)[] transfers)", args: { transfers } });
    expect(tx.status).toBe("CONFIRMED");
    const stored = await recorder.contract.getFunction("allTransfers")();
    expect(stored.map((t: { to: string; amount: bigint }) => [t.to, t.amount.toString()])).toEqual(transfers.map((t) => [t.to, t.amount]));
  });

  it("confirms plain types: bytes, string, bool, bytes32, negative int as a decimal string", async () => {
    const tx = await sendAndWait({
      functionSignature: "setPlain(address who, uint256 amount, bool flag, bytes data, string note, bytes32 tag, int64 delta)",
      args: { who: owner, amount: 5, flag: true, data: "0xdeadbeef", note: "a note", tag, delta: "-12" },
    });
    expect(tx.status).toBe("CONFIRMED");
    const plain = await recorder.contract.getFunction("lastPlain")();
    expect([plain.who, plain.amount, plain.flag, plain.data, plain.note, plain.tag, plain.delta]).toEqual([owner, 5n, true, "0xdeadbeef", "a note", tag, -12n]);
  });

  it("takes integers past 2^53 written as JSON numbers exactly as written, as a client in Python or Go sends them", async () => {
    // JSON.stringify cannot write these (JavaScript rounds them first), so the body is written by hand.
    const amount = "340282366920938463463374607431768211455"; // 2^128-1
    const raw =
      `{"projectId":"${project.projectId}","chainId":${anvil.chainId},"contractAddress":"${recorder.address}",` +
      `"functionSignature":"setTransfers((address to, uint256 amount)[] transfers)",` +
      `"args":{"transfers":[{"to":"${owner}","amount":${amount}},{"to":"${owner}","amount":9007199254740993}]}}`;
    const res = await post(h.baseUrl, "/transact/sendTransaction", raw, project.apiKey, true);
    expect(res.status).toBe(200);
    const tx = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, res.body.transactionId as string);
    expect(tx.status).toBe("CONFIRMED");
    const stored = await recorder.contract.getFunction("allTransfers")();
    expect(stored.map((t: { amount: bigint }) => t.amount.toString())).toEqual([amount, "9007199254740993"]);

    // Out of range is still a 400, naming the value as written.
    const tooBig = raw.replace(amount, "1".repeat(80)).replace("uint256 amount", "uint128 amount");
    const refused = await post(h.baseUrl, "/transact/sendTransaction", tooBig, project.apiKey, true);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe("args.transfers[0].amount must be an integer between 0 and 2^128-1; got an integer of 80 digits");
    const justOver = await post(h.baseUrl, "/transact/sendTransaction", raw.replace(amount, "340282366920938463463374607431768211456").replace("uint256 amount", "uint128 amount"), project.apiKey, true);
    expect(justOver.body.message).toBe("args.transfers[0].amount must be an integer between 0 and 2^128-1; got 340282366920938463463374607431768211456");
    const hugeChain = await post(h.baseUrl, "/transact/sendTransaction", raw.replace(`"chainId":${anvil.chainId}`, `"chainId":18446744073709551616`), project.apiKey, true);
    expect([hugeChain.status, hugeChain.body.message]).toEqual([400, "chainId is too large"]);
    // A very long integer is named by its length, not echoed.
    const long = await post(h.baseUrl, "/transact/sendTransaction", raw.replace(amount, "9".repeat(60_000)), project.apiKey, true);
    expect([long.status, long.body.message]).toEqual([400, "args.transfers[0].amount must be an integer between 0 and 2^256-1; got an integer of 60000 digits"]);
  });

  it("refuses an integer argument written with a fraction that a double would round away, instead of sending the rounded amount", async () => {
    for (const written of ["4503599627370496.5", "0.99999999999999999", "123456789012345.0000001", "45035996273704.965e2"]) {
      const raw =
        `{"projectId":"${project.projectId}","chainId":${anvil.chainId},"contractAddress":"${recorder.address}",` +
        `"functionSignature":"setPlain(address who, uint256 amount, bool flag, bytes data, string note, bytes32 tag, int64 delta)",` +
        `"args":{"who":"${owner}","amount":${written},"flag":true,"data":"0x","note":"","tag":"${tag}","delta":"0"}}`;
      const res = await post(h.baseUrl, "/transact/sendTransaction", raw, project.apiKey, true);
      expect([res.status, res.body.message]).toEqual([400, `args.amount must be an integer between 0 and 2^256-1; got ${written} (a number with a fraction)`]);
    }
  });

  it("makes a call that reverts in simulation INVALID with its reason, without sending anything", async () => {
    const provider = new JsonRpcProvider(anvil.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
    const before = await Promise.all(project.wallets.map((w) => provider.getTransactionCount(w.address)));
    // The nonce counters in Postgres, too: simulation comes before any nonce is taken.
    const counters = () => h.db.walletNonce.findMany({ where: { chainId: BigInt(anvil.chainId), address: { in: project.wallets.map((w) => w.address) } }, orderBy: { address: "asc" } });
    const countersBefore = await counters();
    const tx = await sendAndWait({ functionSignature: "alwaysReverts(uint256 x)", args: { x: 1 } });
    expect(tx.status).toBe("INVALID");
    expect(tx.error).toMatch(/always reverts/);
    expect(tx.attempts).toEqual([]);
    expect(tx.nonce).toBeNull();
    expect((await counters()).map((c) => [c.address, c.next])).toEqual(countersBefore.map((c) => [c.address, c.next]));
    expect(await Promise.all(project.wallets.map((w) => provider.getTransactionCount(w.address)))).toEqual(before);
    provider.destroy();
  });

  it("makes a call INVALID whose revert reason reads like a node's refusal (insufficient funds, nonce too low), not PAUSED or retried", async () => {
    for (const reason of ["ERC20: insufficient funds", "Permit: nonce too low"]) {
      const tx = await sendAndWait({ functionSignature: "revertWith(string reason)", args: { reason } });
      expect({ reason, status: tx.status, error: tx.error, attempts: tx.attempts, nonce: tx.nonce }).toEqual({ reason, status: "INVALID", error: expect.stringContaining(reason), attempts: [], nonce: null });
      expect(tx.history.map((c) => c.status)).toEqual(["PENDING", "INVALID"]);
    }
  });

  it("makes a call that passes simulation but reverts when mined REVERTED", async () => {
    const provider = new JsonRpcProvider(anvil.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
    await provider.send("evm_setAutomine", [false]);
    try {
      const res = await send({ functionSignature: "revertsWhenMined(uint256 x)", args: { x: 9 } });
      expect(res.status).toBe(200);
      const id = res.body.transactionId as string;
      await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id, ["SUBMITTED"]);
      await provider.send("anvil_setStorageAt", [recorder.address, "0x0", `0x${"0".repeat(63)}1`]);
      await provider.send("evm_mine", []);
      const tx = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id);
      expect(tx.status).toBe("REVERTED");
      expect((await provider.getTransactionReceipt(tx.hash!))?.status).toBe(0);
    } finally {
      await provider.send("anvil_setStorageAt", [recorder.address, "0x0", `0x${"0".repeat(64)}`]);
      await provider.send("evm_setAutomine", [true]);
      provider.destroy();
    }
  });

  it("answers 409 with the first transactionId for a reused requestId, and exactly one of concurrent duplicates wins", async () => {
    const requestId = randomUUID();
    const first = await send({ requestId, functionSignature: "alwaysReverts(uint256 x)", args: { x: 1 } });
    expect(first.body).toEqual({ transactionId: requestId });
    const again = await send({ requestId, functionSignature: "setOrder((uint256 id, address owner, uint8[] flags) order)", args: { order: { id: 1, owner, flags: [] } } });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ transactionId: requestId, message: expect.stringMatching(/already used/) });

    // Whether the body matches or not: also a body that would be a 400 now (a retry after the
    // chain was removed, an argument that no longer fits) learns its request was accepted.
    for (const broken of [{ chainId: 999_999 }, { args: { x: "ten" } }, { functionSignature: "nope(" }, { extra: 1 }]) {
      const res = await send({ requestId: requestId.toUpperCase(), functionSignature: "alwaysReverts(uint256 x)", args: { x: 1 }, ...broken });
      expect([JSON.stringify(broken), res.status, res.body.transactionId]).toEqual([JSON.stringify(broken), 409, requestId]);
    }
    // A new requestId with such a body is still the 400 that names the problem.
    const fresh = await send({ requestId: randomUUID(), chainId: 999_999, functionSignature: "alwaysReverts(uint256 x)", args: { x: 1 } });
    expect([fresh.status, fresh.body.message]).toEqual([400, expect.stringMatching(/chainId 999999 is not configured/)]);

    const racer = randomUUID();
    const results = await Promise.all(Array.from({ length: 10 }, () => send({ requestId: racer, functionSignature: "alwaysReverts(uint256 x)", args: { x: 2 } })));
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array(9).fill(409)]);
    expect(results.every((r) => r.body.transactionId === racer)).toBe(true);
  });

  it.each([
    ["a requestId that is not a UUID", { requestId: "abc", functionSignature: "alwaysReverts(uint256 x)" }, 422, /requestId must be a UUID/],
    ["a requestId that is a number", { requestId: 7, functionSignature: "alwaysReverts(uint256 x)" }, 422, /requestId must be a UUID/],
    ["null args where arguments are needed", { requestId: null, args: null, functionSignature: "alwaysReverts(uint256 x)" }, 400, /args\.x is missing/],
    ["an unparseable functionSignature", { functionSignature: "not a function(" }, 400, /functionSignature/],
    ["a missing argument", { functionSignature: "alwaysReverts(uint256 x)", args: {} }, 400, /args\.x is missing/],
    ["an extra argument", { functionSignature: "alwaysReverts(uint256 x)", args: { x: 1, y: 2 } }, 400, /args\.y is not a parameter/],
    ["a mistyped argument", { functionSignature: "alwaysReverts(uint256 x)", args: { x: "ten" } }, 400, /args\.x must be an integer/],
    ["a bad tuple component", { functionSignature: "setOrder((uint256 id, address owner, uint8[] flags) order)", args: { order: { id: 1, owner: "0x12", flags: [] } } }, 400, /args\.order\.owner/],
    ["a bad contract address", { contractAddress: "0x1234", functionSignature: "alwaysReverts(uint256 x)", args: { x: 1 } }, 400, /contractAddress/],
    ["an unknown chain", { chainId: 999_999, functionSignature: "alwaysReverts(uint256 x)", args: { x: 1 } }, 400, /chainId 999999 is not configured/],
    ["a chainId that is a string", { chainId: "1", functionSignature: "alwaysReverts(uint256 x)", args: { x: 1 } }, 400, /chainId must be an integer/],
    ["an unknown field", { functionSignature: "alwaysReverts(uint256 x)", args: { x: 1 }, gasPrice: 1 }, 400, /unknown field/],
  ])("rejects %s", async (_name, body, status, pattern) => {
    const res = await send(body as Record<string, unknown>);
    expect(res.status).toBe(status);
    expect(res.body.message).toMatch(pattern);
  });

  it("takes the nil and max UUIDs as requestIds, as the schema and every other UUID field do", async () => {
    for (const requestId of ["00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff"]) {
      const res = await send({ requestId, functionSignature: "alwaysReverts(uint256 x)", args: { x: 1 } });
      expect([res.status, res.body.transactionId]).toEqual([200, requestId]);
    }
  });

  it("reads null for an optional field as omitted, as generated clients send an unset one", async () => {
    const tx = await sendAndWait({ requestId: null, args: null, functionSignature: "function disarmTrap()" });
    expect(tx.status).toBe("CONFIRMED");
    expect(tx.transactionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(tx.args).toEqual([]);
  });

  it("answers 403 for another project's key and 400 for a bad projectId", async () => {
    const other = await createProjectFixture(h.db, h.kek);
    const forbidden = await send({ functionSignature: "alwaysReverts(uint256 x)", args: { x: 1 } }, other.apiKey);
    expect(forbidden.status).toBe(403);
    // Whatever else is wrong with the body: the key learns nothing about the other project.
    for (const broken of [{ chainId: 999_999 }, { requestId: "not-a-uuid" }, { functionSignature: "nope(" }, { extra: 1 }]) {
      const res = await send({ functionSignature: "alwaysReverts(uint256 x)", args: { x: 1 }, ...broken }, other.apiKey);
      expect([JSON.stringify(broken), res.status]).toEqual([JSON.stringify(broken), 403]);
    }
    const bad = await send({ projectId: "nope", functionSignature: "alwaysReverts(uint256 x)", args: { x: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/projectId must be a UUID/);
  });

  it("keeps another project's transaction unreadable (404)", async () => {
    const res = await send({ functionSignature: "alwaysReverts(uint256 x)", args: { x: 3 } });
    const other = await createProjectFixture(h.db, h.kek);
    const read = await fetch(`${h.baseUrl}/transact/project/${other.projectId}/transactions/${res.body.transactionId}`, {
      headers: { authorization: `Bearer ${other.apiKey}` },
    });
    expect(read.status).toBe(404);
    await expect(readTransaction(h.baseUrl, project.apiKey, project.projectId, res.body.transactionId as string)).resolves.toBeDefined();
  });
});
