import { AbiCoder, Interface, concat, getAddress, type FunctionFragment } from "ethers";
import { encodeCall } from "./encode-call";
import { parseFunctionSignature } from "./parse-function-signature";

const ALICE = getAddress("0x" + "ab".repeat(20));
const BOB = getAddress("0x" + "cd".repeat(20));
const TAG = "0x" + "11".repeat(32);

const ORDER = parseFunctionSignature(
  "function setOrder((uint256 id, (address owner, bytes32 tag) meta, uint8[] flags) order, string note)",
);
const PAY = parseFunctionSignature("pay((address to, uint256 amount)[] payments, bytes memo) payable");

/** ethers' decoding of the calldata, with bigints as decimal strings like normalizedArgs. */
function decoded(fragment: FunctionFragment, calldata: string): unknown {
  const plain = (value: unknown): unknown =>
    typeof value === "bigint" ? value.toString() : Array.isArray(value) ? value.map(plain) : value;
  return plain(new Interface([fragment]).decodeFunctionData(fragment, calldata).toArray(true));
}

describe("encodeCall", () => {
  it("encodes by name and by index to identical calldata, and round-trips through ethers", () => {
    const transfer = parseFunctionSignature("transfer(address to, uint256 amount)");
    const byName = encodeCall(transfer, { to: ALICE, amount: "1000000000000000000000" });
    const byIndex = encodeCall(transfer, { "0": ALICE, "1": "1000000000000000000000" });
    const mixed = encodeCall(transfer, { "1": "1000000000000000000000", to: ALICE });
    expect(byIndex).toEqual(byName);
    expect(mixed).toEqual(byName);
    expect(byName.selector).toBe("0xa9059cbb");
    expect(byName.calldata.startsWith("0xa9059cbb")).toBe(true);
    expect(byName.normalizedArgs).toEqual([ALICE, "1000000000000000000000"]);
    expect(decoded(transfer, byName.calldata)).toEqual(byName.normalizedArgs);
  });

  it("encodes a nested tuple exactly as ethers does for the same values", () => {
    const args = { order: { id: "7", meta: { owner: ALICE, tag: TAG }, flags: [1, 2, 255] }, note: "héllo ✓" };
    const ours = encodeCall(ORDER, args);
    const theirs = new Interface([ORDER]).encodeFunctionData(ORDER, [
      { id: 7n, meta: { owner: ALICE, tag: TAG }, flags: [1n, 2n, 255n] },
      "héllo ✓",
    ]);
    expect(ours.calldata).toBe(theirs);
    expect(ours.normalizedArgs).toEqual([["7", [ALICE, TAG], ["1", "2", "255"]], "héllo ✓"]);
    expect(decoded(ORDER, ours.calldata)).toEqual(ours.normalizedArgs);
    // Components by index too, and the parameter by index: same call.
    const byIndex = encodeCall(ORDER, { "0": { "0": 7, "1": { owner: ALICE, "1": TAG }, flags: [1, 2, 255] }, "1": "héllo ✓" });
    expect(byIndex.calldata).toBe(ours.calldata);
  });

  it("encodes an array of tuples exactly as ethers does", () => {
    const payments = [
      { to: ALICE, amount: "1" },
      { to: BOB, amount: "0xde0b6b3a7640000" },
    ];
    const ours = encodeCall(PAY, { payments, memo: "0xCAFE" });
    const theirs = concat([
      PAY.selector,
      AbiCoder.defaultAbiCoder().encode(PAY.inputs, [
        [
          [ALICE, 1n],
          [BOB, 10n ** 18n],
        ],
        "0xcafe",
      ]),
    ]);
    expect(ours.calldata).toBe(theirs);
    expect(ours.normalizedArgs).toEqual([[[ALICE, "1"], [BOB, "1000000000000000000"]], "0xcafe"]);
    expect(decoded(PAY, ours.calldata)).toEqual(ours.normalizedArgs);
    expect(encodeCall(PAY, { payments: [], memo: "0x" }).normalizedArgs).toEqual([[], "0x"]);
  });

  it("accepts each elementary type in its JSON forms and normalizes it", () => {
    const f = parseFunctionSignature(
      "f(address a, bool b, uint8 c, int8 d, int256 e, uint256 g, bytes4 h, bytes i, string j, bytes32[3] k, uint16[] l)",
    );
    const args = {
      a: ALICE.toLowerCase(),
      b: false,
      c: 255,
      d: "-128",
      e: -(2 ** 53 - 1),
      g: "0x" + "f".repeat(64),
      h: "0xDEADBEEF",
      i: "0x",
      j: "",
      k: [TAG, TAG, "0x" + "00".repeat(32)],
      l: [],
    };
    const encoded = encodeCall(f, args);
    const normalized = [
      ALICE,
      false,
      "255",
      "-128",
      String(-(2 ** 53 - 1)),
      (2n ** 256n - 1n).toString(),
      "0xdeadbeef",
      "0x",
      "",
      [TAG, TAG, "0x" + "00".repeat(32)],
      [],
    ];
    expect(encoded.normalizedArgs).toEqual(normalized);
    expect(decoded(f, encoded.calldata)).toEqual(normalized);
    // Normalized args are JSON-storable and encode to the same call again.
    const stored = JSON.parse(JSON.stringify(encoded.normalizedArgs)) as unknown[];
    expect(encodeCall(f, Object.fromEntries(stored.map((v, i) => [String(i), v]))).calldata).toBe(encoded.calldata);
  });

  it("accepts integer extremes for their width, all-upper-case addresses and bigints from callers in code", () => {
    const f = parseFunctionSignature("f(int256 a, int256 b, uint64 c, address d)");
    const upper = "0x" + ALICE.slice(2).toUpperCase();
    const encoded = encodeCall(f, {
      a: (-(2n ** 255n)).toString(),
      b: (2n ** 255n - 1n).toString(),
      c: 2n ** 64n - 1n,
      d: upper,
    });
    expect(encoded.normalizedArgs).toEqual([(-(2n ** 255n)).toString(), (2n ** 255n - 1n).toString(), "18446744073709551615", ALICE]);
    expect(decoded(f, encoded.calldata)).toEqual(encoded.normalizedArgs);
  });

  it("takes a function without parameters with args absent or empty", () => {
    const f = parseFunctionSignature("function ping() view");
    expect(encodeCall(f, undefined)).toEqual({ calldata: f.selector, selector: f.selector, normalizedArgs: [] });
    expect(encodeCall(f, {}).calldata).toBe(f.selector);
  });

  it("takes unnamed parameters by index and unnamed components by index or position", () => {
    const f = parseFunctionSignature("f(address, (uint256, address who) pair)");
    const byObject = encodeCall(f, { "0": ALICE, pair: { "0": "5", who: BOB } });
    const byPosition = encodeCall(f, { "0": ALICE, "1": ["5", BOB] });
    expect(byPosition.calldata).toBe(byObject.calldata);
    expect(decoded(f, byObject.calldata)).toEqual([ALICE, ["5", BOB]]);
  });

  it("reads parameter names that are also Object.prototype's, from JSON", () => {
    const f = parseFunctionSignature("f(uint256 __proto__, uint256 valueOf, (bool toString) hasOwnProperty)");
    const args: unknown = JSON.parse('{"__proto__": "1", "valueOf": 2, "hasOwnProperty": {"toString": true}}');
    expect(encodeCall(f, args).normalizedArgs).toEqual(["1", "2", [true]]);
  });

  it("handles arrays of arrays, fixed arrays of tuples and an array as long as the calldata limit allows", () => {
    const f = parseFunctionSignature("f(uint8[][2] grid, (bool on)[2] pair, uint256[] many)");
    // 32 bytes each: 4,000 of them and the rest stay under 130,816 bytes of calldata.
    const many = Array.from({ length: 4_000 }, (_, i) => i);
    const encoded = encodeCall(f, { grid: [[1], [2, 3]], pair: [{ on: true }, { on: false }], many });
    const values = [[[1n], [2n, 3n]], [[true], [false]], many.map(BigInt)];
    // Compared with ethers' encoding rather than decoded: decoding thousands of values takes a while.
    expect(encoded.calldata).toBe(new Interface([f]).encodeFunctionData(f, values));
    expect(encoded.normalizedArgs[2]).toEqual(many.map(String));
  });

  it("handles tuples nested to the 32-level limit", () => {
    const deep = (n: number): string => (n === 0 ? "uint8 v" : `(${deep(n - 1)}) t`);
    const f = parseFunctionSignature(`f(${deep(32)})`);
    const value = (n: number): unknown => (n === 0 ? 9 : { [n === 1 ? "v" : "t"]: value(n - 1) });
    const encoded = encodeCall(f, { t: value(32) });
    expect(encoded.calldata).toBe(encoded.selector + (9).toString(16).padStart(64, "0"));
  });
});
