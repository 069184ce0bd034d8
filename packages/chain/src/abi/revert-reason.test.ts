import { AbiCoder, Interface } from "ethers";
import { AppError } from "@relay/core";
import { describeRevert, parseErrorSignatures } from "./revert-reason";

const abi = AbiCoder.defaultAbiCoder();
const errorString = (message: string) => `0x08c379a0${abi.encode(["string"], [message]).slice(2)}`;
const panic = (code: number) => `0x4e487b71${abi.encode(["uint256"], [code]).slice(2)}`;
const custom = new Interface(["error InsufficientBalance(uint256 available, uint256 required)"]);
const context = { functionSignature: "function transfer(address to, uint256 amount)" };

describe("describeRevert", () => {
  it("reads Error(string) as its message", () => {
    expect(describeRevert(errorString("not allowed"), context)).toBe("not allowed");
    expect(describeRevert(errorString(""), context)).toBe("reverted with an empty message");
  });

  it("reads Panic(uint256) as its code and meaning", () => {
    expect(describeRevert(panic(0x01), context)).toBe("panic 0x01: assert(false): an assertion failed");
    expect(describeRevert(panic(0x11), context)).toBe("panic 0x11: arithmetic overflow or underflow");
    expect(describeRevert(panic(0x12), context)).toBe("panic 0x12: division or modulo by zero");
    expect(describeRevert(panic(0x32), context)).toBe("panic 0x32: array index out of bounds");
    expect(describeRevert(panic(0x99), context)).toBe("panic 0x99");
  });

  it("names a custom error and its arguments when its signature is given", () => {
    const data = custom.encodeErrorResult("InsufficientBalance", [1n, 2n]);
    const errorSignatures = parseErrorSignatures(["InsufficientBalance(uint256 available, uint256 required)"]);
    expect(describeRevert(data, { ...context, errorSignatures })).toBe("InsufficientBalance(available: 1, required: 2)");
  });

  it("names a custom error by its selector without its signature, data kept in the reason", () => {
    const data = custom.encodeErrorResult("InsufficientBalance", [1n, 2n]);
    const reason = describeRevert(data, { ...context, errorSignatures: ["error Other(uint8 x)"] });
    expect(reason).toContain(`custom error ${data.slice(0, 10)}`);
    expect(reason).toContain(data.slice(0, 100));
  });

  it("says an empty revert may be a function the contract lacks, with its selector, not require(false)", () => {
    for (const data of ["0x", null]) {
      expect(describeRevert(data, context)).toBe("the contract has no function transfer(address,uint256) (selector 0xa9059cbb) or reverted without a reason");
    }
  });

  it("does not fail on data that does not decode as its selector says", () => {
    expect(describeRevert("0x4e487b7100", context)).toMatch(/^custom error 0x4e487b71/);
  });
});

describe("parseErrorSignatures", () => {
  it("accepts signatures with or without the error keyword, in ethers' full form", () => {
    expect(parseErrorSignatures(["error A(uint256 x)", "B(address who, bool ok)"])).toEqual(["error A(uint256 x)", "error B(address who, bool ok)"]);
  });

  it("refuses a bad one with a 400 naming it by index", () => {
    const refused = (() => {
      try {
        parseErrorSignatures(["error A(uint256 x)", "error B(uint257 x)"]);
      } catch (e) {
        return e;
      }
    })();
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe("BAD_REQUEST");
    expect((refused as AppError).message).toMatch(/^errorSignatures\[1\] is not a valid error signature/);
    expect(() => parseErrorSignatures(["function f(uint256)"])).toThrow(/errorSignatures\[0\]/);
    expect(() => parseErrorSignatures(Array.from({ length: 51 }, () => "error A()"))).toThrow(/more than 50/);
    expect(() => parseErrorSignatures([`error A(${"uint256 ".repeat(200)})`])).toThrow(/errorSignatures\[0\] is longer/);
  });
});
