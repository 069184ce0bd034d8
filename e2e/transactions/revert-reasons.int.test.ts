import { AbiCoder, FunctionFragment, Interface, Wallet, zeroPadValue } from "ethers";
import { addChain, createProjectFixture, fund, RECORDER_TRAP_SLOT, startRecorderChain, waitForStatus, type ProjectFixture, type RecorderChain, type TransactionView } from "@relay/testing";
import { sendTransaction, startHarness, type Harness } from "../support/harness";

type Read = TransactionView & { revertData: string | null };

const abi = AbiCoder.defaultAbiCoder();
const failed = new Interface(["error Failed(uint256 code)"]);

/**
 * Guards and revert reasons against a real anvil: a call to an address without code is INVALID
 * before any nonce is taken, and a revert says why in words a person reads, decoded from its
 * data, which the read keeps raw.
 */
describe("why a transaction failed", () => {
  let h: Harness;
  let chain: RecorderChain;
  let key: Wallet;
  let project: ProjectFixture;

  beforeAll(async () => {
    chain = await startRecorderChain({ chainId: 31_901 });
    h = await startHarness("revert-reasons");
    await addChain(h.db, chain.anvil);
    key = Wallet.createRandom() as unknown as Wallet;
    project = await createProjectFixture(h.db, h.kek, { privateKeys: [key.privateKey] });
    await fund(chain.anvil.rpcUrl, [key.address]);
    await h.startTxWorker();
  });
  afterAll(async () => {
    await h?.close();
    await chain?.stop();
  });

  const send = async (body: Record<string, unknown>) => {
    const res = await sendTransaction(h.baseUrl, project, { chainId: chain.anvil.chainId, contractAddress: chain.recorder.address, ...body });
    expect(res.status).toBe(200);
    return res.body.transactionId as string;
  };
  const final = async (id: string) => (await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id, ["CONFIRMED", "REVERTED", "INVALID", "FAILED"], 20_000)) as Read;
  const eventReasons = async (id: string) =>
    (await h.db.event.findMany({ where: { subject: id }, orderBy: { createdAt: "asc" } })).map((e) => (e.payload as { data: { reason: string | null } }).data.reason);

  /** The wallet's next transaction still goes through, at the nonce the chain expects. */
  const nextGoesThrough = async () => {
    const id = await send({ functionSignature: "setOrder((uint256 id, address owner, uint8[] flags) order)", args: { order: { id: 1, owner: key.address, flags: [] } } });
    const tx = await final(id);
    expect(tx.status).toBe("CONFIRMED");
    return tx;
  };

  it("a contractAddress with no code on the chain: INVALID before any nonce is taken, no gas spent, and the reason says so", async () => {
    const nowhere = Wallet.createRandom().address;
    const provider = chain.recorder.provider;
    const [balanceBefore, nonceBefore] = await Promise.all([provider.getBalance(key.address), provider.getTransactionCount(key.address, "latest")]);

    const id = await send({ contractAddress: nowhere, functionSignature: "setOrder((uint256 id, address owner, uint8[] flags) order)", args: { order: { id: 1, owner: key.address, flags: [] } } });
    const tx = await final(id);

    expect(tx.status).toBe("INVALID");
    expect(tx.error).toBe(`no contract at ${nowhere} on chain ${chain.anvil.chainId}: wrong chain or address?`);
    expect(tx.nonce).toBeNull();
    expect(tx.from).toBeNull();
    expect(tx.attempts).toEqual([]);
    expect(await eventReasons(id)).toEqual([null, tx.error]);
    expect(await provider.getBalance(key.address)).toBe(balanceBefore);
    expect(await provider.getTransactionCount(key.address, "latest")).toBe(nonceBefore);
    // No nonce was taken: the next transaction uses the one the chain expects next.
    expect((await nextGoesThrough()).nonce).toBe(String(nonceBefore));
  });

  it("each kind of revert at simulation: INVALID with the reason decoded and the raw data kept", async () => {
    const cases: { body: Record<string, unknown>; error: string; data: string }[] = [
      {
        body: { functionSignature: "alwaysReverts(uint256 x)", args: { x: 1 } },
        error: "simulation reverted: always reverts",
        data: `0x08c379a0${abi.encode(["string"], ["always reverts"]).slice(2)}`,
      },
      {
        body: { functionSignature: "overflow(uint256 x)", args: { x: 1 } },
        error: "simulation reverted: panic 0x11: arithmetic overflow or underflow",
        data: `0x4e487b71${abi.encode(["uint256"], [0x11]).slice(2)}`,
      },
      {
        body: { functionSignature: "divide(uint256 a, uint256 b)", args: { a: 1, b: 0 } },
        error: "simulation reverted: panic 0x12: division or modulo by zero",
        data: `0x4e487b71${abi.encode(["uint256"], [0x12]).slice(2)}`,
      },
      {
        body: { functionSignature: "assertNonZero(uint256 x)", args: { x: 0 } },
        error: "simulation reverted: panic 0x01: assert(false): an assertion failed",
        data: `0x4e487b71${abi.encode(["uint256"], [0x01]).slice(2)}`,
      },
      {
        body: { functionSignature: "failWith(uint256 code)", args: { code: 7 }, errorSignatures: ["error Failed(uint256 code)"] },
        error: "simulation reverted: Failed(code: 7)",
        data: failed.encodeErrorResult("Failed", [7]),
      },
      {
        body: { functionSignature: "failWith(uint256 code)", args: { code: 7 } },
        error: `simulation reverted: custom error ${failed.getError("Failed")!.selector} (give its signature in errorSignatures to decode it), data ${failed.encodeErrorResult("Failed", [7])}`,
        data: failed.encodeErrorResult("Failed", [7]),
      },
      {
        body: { functionSignature: "noSuchFunction(uint256 x)", args: { x: 1 } },
        error: `simulation reverted: the contract has no function noSuchFunction(uint256) (selector ${FunctionFragment.from("noSuchFunction(uint256)").selector}) or reverted without a reason`,
        data: "0x",
      },
    ];
    const nonceBefore = await chain.recorder.provider.getTransactionCount(key.address, "latest");
    for (const { body, error, data } of cases) {
      const id = await send(body);
      const tx = await final(id);
      expect({ fn: body.functionSignature, status: tx.status, error: tx.error, revertData: tx.revertData }).toEqual({ fn: body.functionSignature, status: "INVALID", error, revertData: data });
      expect(tx.nonce).toBeNull();
      expect(await eventReasons(id)).toEqual([null, error]);
    }
    expect(await chain.recorder.provider.getTransactionCount(key.address, "latest")).toBe(nonceBefore);
    await nextGoesThrough();
  });

  it("a bad errorSignatures entry is a 400 naming it, and nothing is stored", async () => {
    const requestId = crypto.randomUUID();
    const res = await sendTransaction(h.baseUrl, project, {
      requestId,
      chainId: chain.anvil.chainId,
      contractAddress: chain.recorder.address,
      functionSignature: "failWith(uint256 code)",
      args: { code: 7 },
      errorSignatures: ["error Failed(uint256 code)", "error Broken(uint257 x)"],
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^errorSignatures\[1\] is not a valid error signature/);
    const read = await fetch(`${h.baseUrl}/transact/project/${project.projectId}/transactions/${requestId}`, { headers: { authorization: `Bearer ${project.apiKey}` } });
    expect(read.status).toBe(404);
    const notArray = await sendTransaction(h.baseUrl, project, { chainId: chain.anvil.chainId, contractAddress: chain.recorder.address, functionSignature: "failWith(uint256 code)", args: { code: 7 }, errorSignatures: "error Failed(uint256 code)" });
    expect(notArray.status).toBe(400);
    expect(notArray.body.message).toMatch(/errorSignatures/);
  });

  it("a call that reverts on chain after passing simulation: REVERTED with the reason of its call run again on the block's state", async () => {
    const provider = chain.recorder.provider;
    const cases = [
      { body: { functionSignature: "revertsWhenMined(uint256 x)", args: { x: 3 } }, reason: "trap armed", data: `0x08c379a0${abi.encode(["string"], ["trap armed"]).slice(2)}` },
      {
        body: { functionSignature: "failWhenTrapped(uint256 code)", args: { code: 9 }, errorSignatures: ["Failed(uint256 code)"] },
        reason: "Failed(code: 9)",
        data: failed.encodeErrorResult("Failed", [9]),
      },
    ];
    for (const { body, reason, data } of cases) {
      await provider.send("evm_setAutomine", [false]);
      try {
        const id = await send(body);
        await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id, ["SUBMITTED"], 20_000);
        // Armed without a transaction, after the simulation and before the block.
        await provider.send("anvil_setStorageAt", [chain.recorder.address, RECORDER_TRAP_SLOT, zeroPadValue("0x01", 32)]);
        await provider.send("evm_mine", []);
        const tx = await final(id);
        expect(tx.status).toBe("REVERTED");
        expect(tx.error).toMatch(new RegExp(`^reverted on chain in block \\d+: ${reason.replace(/[()]/g, "\\$&")}$`));
        expect(tx.revertData).toBe(data);
        expect((await eventReasons(id)).at(-1)).toBe(tx.error);
      } finally {
        await provider.send("anvil_setStorageAt", [chain.recorder.address, RECORDER_TRAP_SLOT, zeroPadValue("0x00", 32)]);
        await provider.send("evm_setAutomine", [true]);
      }
    }
    await nextGoesThrough();
  });
});
