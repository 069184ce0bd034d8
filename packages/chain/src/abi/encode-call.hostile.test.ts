import { FunctionFragment, getAddress } from "ethers";
import { encodeCall } from "./encode-call";
import { parseFunctionSignature } from "./parse-function-signature";
import { badRequestMessage } from "./expect-bad-request.test-support";

/**
 * Whatever a request body holds, the answer is a 400: never a TypeError, a RangeError from a
 * blown stack, or a request that holds the event loop for seconds.
 */
const ALICE = getAddress("0x" + "ab".repeat(20));
const TYPES = parseFunctionSignature(
  "f(address a, bool b, uint256 c, int8 d, bytes e, bytes32 g, string h, uint8[] i, (uint256 x, address y) j, (bool)[2] k)",
);
const GOOD: Record<string, unknown> = {
  a: ALICE,
  b: true,
  c: "1",
  d: -1,
  e: "0x",
  g: "0x" + "00".repeat(32),
  h: "",
  i: [],
  j: { x: 1, y: ALICE },
  k: [[true], [false]],
};

const HOSTILE: unknown[] = [
  ...[JSON.parse("1e400"), JSON.parse("-1e400"), -0, NaN, Infinity, 1e21, 2 ** 53, -(2 ** 53), 0.1, 5e-324, Number.MAX_VALUE],
  ...["NaN", "Infinity", "-Infinity", "1e3", "0x", "-", "--1", "-0", "-00", "0.0", "1n", "0b11", "0o7", "+1", " 1", "1\n", "\u0000"],
  // Unicode digits BigInt() and regex \d would not all refuse: Arabic-Indic, full-width, Devanagari, mathematical bold.
  ...["١٢٣", "１２３", "१२३", "𝟏𝟐𝟑", "0x１２", "0xabc\u200b", "1".repeat(5000), "0x" + "f".repeat(5000)],
  ...[null, undefined, {}, [], [[]], { __proto__: null }, new Map(), new Date(0), Symbol("s"), () => 1, 10n ** 80n, -(10n ** 80n)],
  ...[JSON.parse('{"__proto__": {"x": 1}}'), JSON.parse('{"constructor": {"prototype": {}}}'), Object.create({ x: 1 })],
];

describe("encodeCall with hostile input", () => {
  it("answers every odd value in every position with BAD_REQUEST naming the field", () => {
    for (const key of Object.keys(GOOD)) {
      for (const value of HOSTILE) {
        let result: unknown;
        try {
          result = encodeCall(TYPES, { ...GOOD, [key]: value });
        } catch (e) {
          const message = badRequestMessage(() => {
            throw e;
          });
          expect(message).toMatch(new RegExp(`^args\\.${key}\\b`));
          continue;
        }
        // The few that are fine somewhere (a bigint in range, {} for nothing) must have encoded.
        expect(result).toHaveProperty("calldata");
      }
    }
  });

  it("refuses __proto__ keys as unknown parameters and components, without touching prototypes", () => {
    const args: unknown = JSON.parse(`{"__proto__": {"polluted": true}, "to": "${ALICE}", "amount": "1"}`);
    const transfer = parseFunctionSignature("transfer(address to, uint256 amount)");
    expect(badRequestMessage(() => encodeCall(transfer, args))).toBe("args.__proto__ is not a parameter of transfer(address,uint256); its parameters, by name or index: to or 0 (address), amount or 1 (uint256)");
    const pair = parseFunctionSignature("f((uint256 x) t)");
    expect(badRequestMessage(() => encodeCall(pair, JSON.parse('{"t": {"x": 1, "__proto__": {}}}')))).toMatch(/^args\.t\.__proto__ is not a component/);
    expect(badRequestMessage(() => encodeCall(pair, JSON.parse('{"t": {"__proto__": {"x": 1}}}')))).toMatch(/^args\.t\.__proto__ is not a component/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("refuses a huge array at once, by its length", () => {
    const f = parseFunctionSignature("f(uint256[] many)");
    expect(badRequestMessage(() => encodeCall(f, { many: new Array(10_001).fill(0) }))).toBe(
      "args.many has 10001 elements; at most 10000 are accepted",
    );
    const started = Date.now();
    expect(badRequestMessage(() => encodeCall(f, { many: new Array(50_000_000) }))).toMatch(/^args\.many has 50000000 elements/);
    expect(Date.now() - started).toBeLessThan(100);
  });

  it("stops nested arrays that multiply past the total before the work is done", () => {
    const f = parseFunctionSignature("f(uint8[][] grid)");
    const row = new Array(10_000).fill(1);
    const started = Date.now();
    expect(badRequestMessage(() => encodeCall(f, { grid: new Array(10_000).fill(row) }))).toMatch(
      /^args has more than 20000 values in all \(at args\.grid\[\d+\]\[\d+\]\)/,
    );
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("refuses calldata no node would take into its pool, giving its size and the limit", () => {
    // 9,999 one-element arrays (20,000 values with the outer one): "[0]," is 4 bytes of JSON and 96 of calldata (offset, length, value).
    const grid = parseFunctionSignature("f(uint256[][] grid)");
    const args = { grid: new Array(9_999).fill([0]) };
    expect(JSON.stringify(args).length).toBeLessThan(41_000);
    expect(badRequestMessage(() => encodeCall(grid, args))).toBe(
      "args encode to 959972 bytes of calldata; at most 130816 are accepted, as nodes refuse a signed transaction over 131072 bytes (128 KiB); send the data in several smaller calls",
    );
    // At the limit: 4 (selector) + 32 (offset) + 32 (length) + the bytes padded to 32.
    const blob = parseFunctionSignature("f(bytes data)");
    expect(encodeCall(blob, { data: "0x" + "ab".repeat(130_720) }).calldata.length).toBe(2 + 2 * 130_788);
    expect(badRequestMessage(() => encodeCall(blob, { data: "0x" + "ab".repeat(130_721) }))).toMatch(/^args encode to 130820 bytes of calldata; at most 130816 are accepted/);
  });

  it("refuses deep JSON where the type has none, without recursing into it", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const f = parseFunctionSignature("f(uint8[] flags, (uint256 x) t)");
    expect(badRequestMessage(() => encodeCall(f, { flags: [deep], t: { x: 1 } }))).toMatch(/^args\.flags\[0\] must be an integer/);
    let object: unknown = 1;
    for (let i = 0; i < 100_000; i++) object = { x: object };
    expect(badRequestMessage(() => encodeCall(f, { flags: [], t: object }))).toMatch(/^args\.t\.x must be an integer/);
  });

  it("refuses a type nested deeper than 32 even when the fragment did not come from parseFunctionSignature", () => {
    let type: Record<string, unknown> = { type: "uint8", name: "v" };
    for (let i = 0; i < 40; i++) type = { type: "tuple", name: "t", components: [type] };
    const fragment = FunctionFragment.from({ type: "function", name: "f", inputs: [type], outputs: [], stateMutability: "nonpayable" });
    let value: unknown = 1;
    for (let i = 0; i < 40; i++) value = { [i === 0 ? "v" : "t"]: value };
    expect(badRequestMessage(() => encodeCall(fragment, { t: value }))).toMatch(/nests arrays and tuples deeper than 32 levels$/);
  });

  it("refuses hostile signatures with BAD_REQUEST", () => {
    const signatures = [
      "f(" + "(".repeat(100_000),
      "f(" + "uint8[]".repeat(600) + ")",
      "f(uint8" + "[1]".repeat(1000) + " a)",
      "\u0000",
      "f()\u2028",
      "function",
      "function function f()",
      "f(tuple a)",
      "f((((((((((",
      "))))((((",
      "f(uint256[-1] a)",
      "f(uint256[1e3] a)",
      "f(uint256 a) @",
      "f(uint256 a) returns (uint256 b) returns (uint256 c)",
    ];
    for (const signature of signatures) {
      expect(badRequestMessage(() => parseFunctionSignature(signature))).toMatch(/^functionSignature /);
    }
  });

  it("keeps every message short, whatever the length of the names and signature it quotes", () => {
    const many = Array.from({ length: 350 }, (_, i) => `p${i}`);
    const wide = parseFunctionSignature(`f(${many.map((n) => `uint8 ${n}`).join(",")})`);
    const unknownKey = badRequestMessage(() => encodeCall(wide, { zzz: 1 }));
    expect(unknownKey).toMatch(/^args\.zzz is not a parameter of f\(uint8,uint8,/);
    const wideTuple = parseFunctionSignature(`f((${many.map((n) => `uint8 ${n}`).join(",")}) t)`);
    const notAnObject = badRequestMessage(() => encodeCall(wideTuple, { t: 5 }));
    expect(notAnObject).toMatch(/^args\.t must be an object with p0, p1, .*, … \(350 in all\); got 5$/);
    const unknownComponent = badRequestMessage(() => encodeCall(wideTuple, { t: { zzz: 1 } }));
    expect(unknownComponent).toMatch(/… \(350 in all\)$/);
    const longName = parseFunctionSignature(`${"f".repeat(3900)}(uint8 a)`);
    const longLabel = badRequestMessage(() => encodeCall(longName, { b: 1 }));
    const duplicate = badRequestMessage(() => parseFunctionSignature(`f(uint8 ${"n".repeat(2000)}, uint8 ${"n".repeat(2000)})`));
    expect(duplicate).toMatch(/^functionSignature has two parameters named "n{40}…" in one list$/);
    for (const message of [unknownKey, notAnObject, unknownComponent, longLabel, duplicate]) expect(message.length).toBeLessThan(400);
  });
});
