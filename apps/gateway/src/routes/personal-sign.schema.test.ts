import { describeIssues } from "../http-schemas";
import { personalSignRequest, MAX_MESSAGE_LENGTH } from "./personal-sign.schema";

const address = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const problem = (input: unknown) => {
  const result = personalSignRequest.safeParse(input);
  return result.success ? null : describeIssues(result.error, input);
};

describe("personalSign request validation", () => {
  it("accepts a lower-case address and returns it checksummed", () => {
    const parsed = personalSignRequest.parse({ signerAddress: address.toLowerCase(), message: "" });
    expect(parsed.signerAddress).toBe(address);
  });

  it.each([
    [{ message: "m" }, "signerAddress is required"],
    [{ signerAddress: address }, "message is required"],
    [{ signerAddress: address, message: 1 }, "message must be a string"],
    [{ signerAddress: "0x12", message: "m" }, "signerAddress must be a 0x-prefixed 20-byte hex address"],
    [{ signerAddress: address.replace("C8", "c8"), message: "m" }, "signerAddress has an invalid EIP-55 checksum"],
    [{ signerAddress: address, message: "m", signatureId: "123" }, "signatureId must be a UUID"],
    [{ signerAddress: address, message: "x".repeat(MAX_MESSAGE_LENGTH + 1) }, `message must be at most ${MAX_MESSAGE_LENGTH} characters`],
    [{ signerAddress: address, message: "\ud800" }, "lone surrogate"],
    [{ signerAddress: address, message: "m", foo: 1, bar: 2 }, 'unknown field(s) "foo", "bar"'],
  ])("explains %j", (input, expected) => {
    expect(problem(input)).toContain(expected);
  });

  it("keeps messages that are not plain text, such as NUL and emoji", () => {
    expect(problem({ signerAddress: address, message: "a\u0000b 🦊" })).toBeNull();
  });
});
