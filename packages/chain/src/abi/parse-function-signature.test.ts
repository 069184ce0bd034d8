import { FunctionFragment } from "ethers";
import { parseFunctionSignature } from "./parse-function-signature";
import { badRequestMessage } from "./expect-bad-request.test-support";

const sighash = (signature: string): string => parseFunctionSignature(signature).format("sighash");

describe("parseFunctionSignature", () => {
  it("reads ethers' human-readable forms, with or without the function keyword", () => {
    expect(sighash("transfer(address to, uint256 amount)")).toBe("transfer(address,uint256)");
    expect(sighash("function transfer(address to, uint256 amount)")).toBe("transfer(address,uint256)");
    expect(sighash("  transfer(address,uint256)\n")).toBe("transfer(address,uint256)");
    expect(parseFunctionSignature("transfer(address to, uint256 amount)").selector).toBe("0xa9059cbb");
  });

  it("reads tuples with named components, nested, in keyword form, and in arrays", () => {
    const order = parseFunctionSignature(
      "function setOrder((uint256 id, (address owner, bytes32 tag) meta, uint8[] flags) order, string note)",
    );
    expect(order.format("sighash")).toBe("setOrder((uint256,(address,bytes32),uint8[]),string)");
    expect(order.inputs[0]?.components?.map((c) => c.name)).toEqual(["id", "meta", "flags"]);
    expect(order.inputs[0]?.components?.[1]?.components?.map((c) => c.name)).toEqual(["owner", "tag"]);
    expect(sighash("f(tuple(uint256 a, tuple(address b) c) t)")).toBe("f((uint256,(address)))");
    expect(sighash("pay((address to, uint256 amount)[] payments)")).toBe("pay((address,uint256)[])");
    expect(sighash("f(uint256[] a, bytes32[3] b, uint8[2][] c, (uint256)[2] d)")).toBe(
      "f(uint256[],bytes32[3],uint8[2][],(uint256)[2])",
    );
    expect(sighash("f(uint a, int b)")).toBe("f(uint256,int256)");
    // Spaces inside an array size, as ethers reads them.
    expect(sighash("f(uint8[ 2 ] a, uint8 [ ] b)")).toBe("f(uint8[2],uint8[])");
    // `$` belongs to an identifier: these are names, not the event keyword.
    expect(sighash("f(uint256 $indexed, uint256 indexed$)")).toBe("f(uint256,uint256)");
    expect(sighash("indexed$(uint256 a)")).toBe("indexed$(uint256)");
  });

  it("tolerates mutability, visibility, data locations and returns", () => {
    const cases: [string, string][] = [
      ["function deposit() payable", "payable"],
      ["function deposit() external payable", "payable"],
      ["function set(uint256 v) nonpayable", "nonpayable"],
      ["function set(uint256 v) public nonpayable returns (bool)", "nonpayable"],
      ["balanceOf(address who) view returns (uint256)", "view"],
      ["function f(bytes calldata data, string memory s) external pure returns (bytes32 h)", "pure"],
    ];
    for (const [signature, mutability] of cases) {
      const fragment = parseFunctionSignature(signature);
      expect(fragment).toBeInstanceOf(FunctionFragment);
      expect(fragment.stateMutability).toBe(mutability);
    }
    // Only the modifier is dropped: a parameter called nonpayable keeps its name.
    expect(parseFunctionSignature("f(uint256 nonpayable) nonpayable").inputs[0]?.name).toBe("nonpayable");
  });

  it("refuses what is not exactly one function, naming functionSignature and why", () => {
    const cases: [unknown, RegExp][] = [
      ["", /functionSignature is empty/],
      ["   ", /functionSignature is empty/],
      [42, /functionSignature must be a string/],
      ["event Transfer(address indexed from, address indexed to, uint256 value)", /must describe a function, not an event/],
      ["error Unauthorized(address caller)", /not an error/],
      ["constructor(address owner)", /not a constructor/],
      ["struct S(uint256 a)", /not a struct/],
      ["receive() external payable", /not a receive/],
      ["garbage", /functionSignature has no parameter list/],
      ["transfer(address to, uint256 amount);", /unexpected character ";" at position 36/],
      ["  f(uint256 a) { }", /unexpected character "\{" at position 15/],
      ["f(uint256 a", /"\(" that is never closed/],
      ["f(uint256 a))", /"\)" without "\(" at position 12/],
      ["f(uint7 a)", /not a valid function signature: invalid numeric width "uint7"/],
      ["f(bytes33 a)", /invalid bytes length "bytes33"/],
      ["f(foo a)", /not a valid function signature/],
      ["f(uint256 a) g(uint256 b)", /not a valid function signature: unexpected tokens/],
      ["f(uint256 a) returns", /it ends where more was expected/],
      ["f(uint256 indexed a)", /"indexed", which only events have/],
      // Unbalanced brackets, which ethers would read as another array type (another selector).
      ["f(uint8[[2]] a)", /"\[" at position 7 that does not end an array size/],
      ["f(uint8[ a)", /"\[" at position 7 that does not end an array size/],
      ["f(uint8[]] a)", /"\]" without "\[" at position 9/],
      ["f(uint8[2 a)", /"\[" at position 7/],
      ["f(uint8] a)", /"\]" without "\[" at position 7/],
      ["f(uint8[x] a)", /"\[" at position 7/],
      ["f() view payable", /conflicting state mutability: view, payable/],
      ["f() payable nonpayable", /conflicting state mutability/],
      ["f(uint256 a, address a)", /two parameters named "a"/],
      ["f((uint256 x, uint256 x) t)", /two components named "x"/],
      ["f(uint8[10001] a)", /fixed array of 10001 elements; at most 10000/],
      ["f(uint8[99999999999999999999] a)", /not a valid function signature: invalid numeric string/],
      ["f({\"type\":\"function\"})", /unexpected character/],
      ["f(uint256 a)\u00a0", /unexpected character/],
      ["f(" + "x".repeat(5000) + ")", /longer than 4096 characters/],
    ];
    for (const [signature, pattern] of cases) {
      const message = badRequestMessage(() => parseFunctionSignature(signature as string));
      expect(message).toMatch(/^functionSignature /);
      expect(message).toMatch(pattern);
    }
  });

  it("refuses nesting deeper than 32 levels, in tuples and in arrays, before it costs anything", () => {
    const tuples = (n: number): string => `f(${"(".repeat(n)}uint8${")".repeat(n)} a)`;
    expect(sighash(tuples(32))).toContain("uint8");
    expect(badRequestMessage(() => parseFunctionSignature(tuples(33)))).toMatch(/deeper than 32 levels/);
    expect(badRequestMessage(() => parseFunctionSignature(tuples(2000)))).toMatch(/deeper than 32 levels/);
    const arrays = (n: number): string => `f(uint8${"[]".repeat(n)} a)`;
    expect(sighash(arrays(32))).toContain("uint8[]");
    expect(badRequestMessage(() => parseFunctionSignature(arrays(33)))).toMatch(/deeper than 32 levels \(a\)/);
    expect(badRequestMessage(() => parseFunctionSignature(arrays(2000)))).toMatch(/deeper than 32 levels/);
    expect(badRequestMessage(() => parseFunctionSignature(`f((uint8[]${"[]".repeat(31)} x) t)`))).toMatch(/deeper than 32/);
  });
});

describe("parsed signatures are remembered", () => {
  test("the same text gives the same read-only fragment; another text, or a refused one, is parsed anew", () => {
    const first = parseFunctionSignature("setValue(uint256 value)");
    expect(parseFunctionSignature("setValue(uint256 value)")).toBe(first);
    // Shared between requests: ethers defines a fragment's properties read-only.
    expect(() => Object.assign(first, { name: "other" })).toThrow(TypeError);
    expect(Object.isFrozen(first.inputs)).toBe(true);
    expect(parseFunctionSignature("function setValue(uint256 value)")).not.toBe(first);
    expect(() => parseFunctionSignature("setValue(uint257)")).toThrow(/functionSignature/);
    expect(() => parseFunctionSignature("setValue(uint257)")).toThrow(/functionSignature/);
  });
});
