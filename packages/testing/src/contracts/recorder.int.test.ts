import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  Contract,
  Wallet,
  ZeroHash,
  getAddress,
  id,
  isCallException,
  toBeHex,
  zeroPadValue,
  type ContractTransactionReceipt,
  type ContractTransactionResponse,
  type LogDescription,
} from "ethers";
import { startAnvil, type AnvilInstance } from "../anvil";
import { compileContract } from "./compile";
import { RECORDER_TRAP_SLOT, deployRecorder, recorderArtifact, type DeployedRecorder } from "./deploy";

describe("compileContract", () => {
  const scratch = mkdtempSync(path.join(tmpdir(), "relay-contracts-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("compiles Recorder.sol once and then reads it from the cache", () => {
    const cacheDir = path.join(scratch, "cache");
    const timed = <T>(run: () => T): [T, number] => {
      const start = performance.now();
      const result = run();
      return [result, performance.now() - start];
    };

    const [cold, coldMs] = timed(() => compileContract("Recorder.sol", "Recorder", { cacheDir }));
    expect(readdirSync(cacheDir)).toEqual([expect.stringMatching(/^Recorder\.sol-[0-9a-f]{32}\.json$/)]);
    const [cached, cachedMs] = timed(() => compileContract("Recorder.sol", "Recorder", { cacheDir }));
    rmSync(cacheDir, { recursive: true });
    const [, warmMs] = timed(() => compileContract("Recorder.sol", "Recorder", { cacheDir }));

    expect(cached).toEqual(cold);
    expect(cold.bytecode).toMatch(/^0x(?:[0-9a-f]{2})+$/);
    expect(cold.abi.map((f) => f.name)).toEqual(expect.arrayContaining(["setPlain", "setOrder", "setDoc", "Failed"]));
    // Timings vary with the machine: printed, not asserted.
    console.log(
      `compile Recorder.sol: cold ${coldMs.toFixed(0)} ms (first compile in this process, loads solc if ` +
        `nothing did before), solc loaded ${warmMs.toFixed(0)} ms, cached ${cachedMs.toFixed(1)} ms`,
    );
  });

  it("recompiles when an imported source changes", () => {
    const dir = path.join(scratch, "imports");
    const cacheDir = path.join(dir, "cache");
    mkdirSync(dir);
    writeFileSync(path.join(dir, "Base.sol"), "pragma solidity ^0.8.0; contract Base { function v() external pure returns (uint256) { return 1; } }");
    writeFileSync(path.join(dir, "Main.sol"), 'pragma solidity ^0.8.0; import "./Base.sol"; contract Main is Base {}');

    const first = compileContract(path.join(dir, "Main.sol"), "Main", { cacheDir });
    writeFileSync(path.join(dir, "Base.sol"), "pragma solidity ^0.8.0; contract Base { function v() external pure returns (uint256) { return 2; } }");
    const second = compileContract(path.join(dir, "Main.sol"), "Main", { cacheDir });

    expect(second.bytecode).not.toBe(first.bytecode);
    // Only the contracts of the file itself, not of its imports.
    expect(() => compileContract(path.join(dir, "Main.sol"), "Base", { cacheDir })).toThrow("has no contract Base (it has: Main)");
  });

  it("throws solc's own messages when the source does not compile", () => {
    const file = path.join(scratch, "Broken.sol");
    writeFileSync(file, "pragma solidity ^0.8.0;\ncontract Broken { function f() external { undefinedThing(); } }\n");
    expect(() => compileContract(file, "Broken", { cacheDir: path.join(scratch, "cache-broken") })).toThrow(
      /could not compile .*Broken\.sol:\n(.|\n)*DeclarationError: Undeclared identifier/,
    );
  });

  it("names the contracts a file has when asked for another", () => {
    expect(() => compileContract("Recorder.sol", "Nope")).toThrow("Recorder.sol has no contract Nope (it has: Recorder)");
  });
});

describe("Recorder on anvil", () => {
  let node: AnvilInstance;
  let deployed: DeployedRecorder;
  let caller: Wallet;
  let recorder: Contract; // connected to `caller`

  beforeAll(async () => {
    node = await startAnvil();
    deployed = await deployRecorder(node.rpcUrl);
    // Not the deployer: the events must name whoever sent the call.
    caller = new Wallet(Wallet.createRandom().privateKey, deployed.provider);
    await deployed.provider.send("anvil_setBalance", [caller.address, toBeHex(10n ** 20n)]);
    recorder = deployed.contract.connect(caller) as Contract;
  });

  afterAll(async () => {
    deployed?.provider.destroy();
    await node?.stop();
  });

  const read = (name: string, ...args: unknown[]) => deployed.contract.getFunction(name).staticCall(...args);

  async function send(name: string, ...args: unknown[]): Promise<ContractTransactionReceipt> {
    const tx = (await recorder.getFunction(name).send(...args)) as ContractTransactionResponse;
    const receipt = await tx.wait();
    if (!receipt) throw new Error(`${name}: no receipt`);
    return receipt;
  }

  function onlyEvent(receipt: ContractTransactionReceipt): LogDescription {
    const events = receipt.logs.map((log) => deployed.contract.interface.parseLog(log));
    expect(events).toHaveLength(1);
    return events[0]!;
  }

  async function expectRevert(promise: Promise<unknown>): Promise<Error> {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!isCallException(error)) throw new Error(`expected a call exception, got ${String(error)}`);
    return error;
  }

  it("deploys with the ABI and the code it compiled", async () => {
    expect(deployed.address).toBe(getAddress(deployed.address));
    expect(deployed.abi).toEqual(recorderArtifact().abi);
    expect(await deployed.provider.getCode(deployed.address)).not.toBe("0x");
    expect(await read("callCount")).toBe(0n);
  });

  it("setPlain stores address, uint256, bool, bytes, string, bytes32 and int64", async () => {
    const who = Wallet.createRandom().address;
    const tag = id("plain");
    const receipt = await send("setPlain", who, 2n ** 255n + 7n, true, "0xdeadbeef00", "héllo ✓", tag, -(2n ** 63n));

    const plain = await read("lastPlain");
    expect(plain.toObject()).toEqual({
      who,
      amount: 2n ** 255n + 7n,
      flag: true,
      data: "0xdeadbeef00",
      note: "héllo ✓",
      tag,
      delta: -(2n ** 63n),
    });
    const event = onlyEvent(receipt);
    expect(event.name).toBe("PlainSet");
    expect(event.args.toObject()).toEqual({ caller: caller.address, who, amount: 2n ** 255n + 7n, tag });
    expect(await read("lastCaller")).toBe(caller.address);
  });

  it("setOrder stores a named tuple with an array member", async () => {
    const owner = Wallet.createRandom().address;
    const receipt = await send("setOrder", { id: 7n, owner, flags: [1, 2, 255] });

    const order = await read("lastOrder");
    expect(order.id).toBe(7n);
    expect(order.owner).toBe(owner);
    expect(order.flags.toArray()).toEqual([1n, 2n, 255n]);
    expect(onlyEvent(receipt).args.toObject()).toEqual({ caller: caller.address, id: 7n, owner, flagCount: 3n });
  });

  it("setDoc stores a nested tuple beside a plain argument", async () => {
    const author = Wallet.createRandom().address;
    const tag = id("meta");
    const receipt = await send("setDoc", { id: 3n, meta: { author, tag }, title: "Release notes" }, 2n);

    const doc = await read("docs", 3n);
    expect(doc.toObject(true)).toEqual({ id: 3n, meta: { author, tag }, title: "Release notes" });
    expect(await read("docVersion", 3n)).toBe(2n);
    expect((await read("docs", 4n)).toObject(true)).toEqual({ id: 0n, meta: { author: getAddress("0x" + "00".repeat(20)), tag: ZeroHash }, title: "" });
    expect(onlyEvent(receipt).args.toObject()).toEqual({ caller: caller.address, id: 3n, version: 2n, author });
  });

  it("setTransfers stores an array of tuples, replacing the previous one", async () => {
    const [a, b, c] = [0, 1, 2].map(() => Wallet.createRandom().address) as [string, string, string];
    await send("setTransfers", [{ to: c, amount: 9n }]);
    const receipt = await send("setTransfers", [
      { to: a, amount: 10n },
      { to: b, amount: 20n },
    ]);

    expect(await read("transferCount")).toBe(2n);
    expect((await read("transferAt", 0n)).toObject()).toEqual({ to: a, amount: 10n });
    expect((await read("transferAt", 1n)).toObject()).toEqual({ to: b, amount: 20n });
    expect((await read("allTransfers")).toArray().map((t: { to: string }) => t.to)).toEqual([a, b]);
    await expectRevert(read("transferAt", 2n));
    expect(onlyEvent(receipt).args.toObject()).toEqual({ caller: caller.address, count: 2n, total: 30n });
  });

  it("alwaysReverts fails eth_estimateGas with its reason", async () => {
    const error = await expectRevert(recorder.getFunction("alwaysReverts").estimateGas(1n));
    expect(error).toMatchObject({ reason: "always reverts", revert: { name: "Error", args: ["always reverts"] } });
  });

  it("failWith fails eth_estimateGas with the custom error Failed(code)", async () => {
    const error = await expectRevert(recorder.getFunction("failWith").estimateGas(42n));
    // ethers decodes custom errors for calls only; from estimateGas comes the raw revert data.
    const decoded = deployed.contract.interface.parseError((error as Error & { data: string }).data);
    expect(decoded?.signature).toBe("Failed(uint256)");
    expect(decoded?.args.toArray()).toEqual([42n]);
    await expect(read("failWith", 42n)).rejects.toMatchObject({ revert: { name: "Failed", args: [42n] } });
  });

  describe("revertsWhenMined", () => {
    afterEach(async () => {
      await deployed.provider.send("evm_setAutomine", [true]);
      if (await read("trapArmed")) await send("disarmTrap");
    });

    it("with automine: passes estimateGas, then armTrap() makes the mined transaction revert", async () => {
      const gasLimit = await recorder.getFunction("revertsWhenMined").estimateGas(5n);
      onlyEvent(await send("armTrap"));
      expect(await read("trapArmed")).toBe(true);

      // An explicit gas limit, or ethers estimates again and refuses to send.
      const tx = (await recorder.getFunction("revertsWhenMined").send(5n, { gasLimit })) as ContractTransactionResponse;
      const error = await expectRevert(tx.wait());
      expect(error).toMatchObject({ receipt: { status: 0, hash: tx.hash } });
      expect((await deployed.provider.getTransactionReceipt(tx.hash))?.status).toBe(0);

      // Disarmed, the same call is mined and succeeds.
      await send("disarmTrap");
      const passed = onlyEvent(await send("revertsWhenMined", 6n));
      expect(passed.args.toObject()).toEqual({ caller: caller.address, x: 6n });
    });

    it("without mining: arming through the storage slot while the transaction is pending", async () => {
      await deployed.provider.send("evm_setAutomine", [false]);
      const gasLimit = await recorder.getFunction("revertsWhenMined").estimateGas(7n);
      const tx = (await recorder.getFunction("revertsWhenMined").send(7n, { gasLimit })) as ContractTransactionResponse;
      expect(await deployed.provider.getTransactionReceipt(tx.hash)).toBeNull();

      await deployed.provider.send("anvil_setStorageAt", [deployed.address, RECORDER_TRAP_SLOT, zeroPadValue("0x01", 32)]);
      expect(await read("trapArmed")).toBe(true);
      await deployed.provider.send("evm_mine", []);

      expect((await deployed.provider.getTransactionReceipt(tx.hash))?.status).toBe(0);
    });
  });

  it("spend(n) burns about n × 1,000 gas", async () => {
    await send("spend", 1n); // the first call fills fresh slots; compare calls that do not
    const small = await send("spend", 100n);
    const large = await send("spend", 300n);

    const smallBurnt = onlyEvent(small).args.getValue("burnt") as bigint;
    // The loop stops at the first hash past the budget: one round (~100 gas) of overshoot.
    expect(smallBurnt).toBeGreaterThanOrEqual(100_000n);
    expect(smallBurnt).toBeLessThan(100_500n);
    expect(large.gasUsed - small.gasUsed).toBeGreaterThan(199_500n);
    expect(large.gasUsed - small.gasUsed).toBeLessThan(200_500n);
    expect(small.gasUsed).toBeLessThan(100_000n + 50_000n);
    expect(onlyEvent(large).args.toObject()).toMatchObject({ caller: caller.address, n: 300n });
    expect(await read("totalSpent")).toBe(401n);
    expect(await read("spendDigest")).not.toBe(ZeroHash);
  });

  it("counts every successful call and remembers the last caller", async () => {
    const before = (await read("callCount")) as bigint;
    await send("setTransfers", []);
    expect(await read("callCount")).toBe(before + 1n);
    expect(await read("lastCaller")).toBe(caller.address);
  });
});
