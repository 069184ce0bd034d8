import { InvalidArgumentError } from "commander";
import { parseBigIntArg } from "./options";

describe("parseBigIntArg", () => {
  const chainId = parseBigIntArg("--chain-id", 1n, BigInt(Number.MAX_SAFE_INTEGER));

  it("takes a whole number within the bounds exactly", () => {
    expect(chainId("8453")).toBe(8453n);
    expect(chainId(String(Number.MAX_SAFE_INTEGER))).toBe(BigInt(Number.MAX_SAFE_INTEGER));
  });

  it("refuses one past the bound, naming the range (a chain id events could not carry exactly)", () => {
    expect(() => chainId("9007199254740992")).toThrow(InvalidArgumentError);
    expect(() => chainId("9007199254740992")).toThrow("--chain-id must be a whole number from 1 to 9007199254740991.");
    expect(() => chainId("0")).toThrow(InvalidArgumentError);
  });

  it("has no upper bound when none is given (wei)", () => {
    expect(parseBigIntArg("--amount", 0n)("1" + "0".repeat(30))).toBe(10n ** 30n);
  });
});
