import { getAddress } from "ethers";
import { checksumAddress } from "./checksum-address";

describe("checksumAddress", () => {
  const lower = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
  const checksummed = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

  test("answers as ethers' getAddress, the first time and from memory", () => {
    expect(checksumAddress(lower)).toBe(getAddress(lower));
    expect(checksumAddress(lower)).toBe(checksummed);
    expect(checksumAddress(checksummed)).toBe(checksummed);
  });

  test("refuses a wrong mixed-case checksum every time (a refusal is not remembered as an answer)", () => {
    const wrong = "0x70997970C51812dc3A010C7d01b50e0d17dc79c8";
    expect(() => checksumAddress(wrong)).toThrow();
    expect(() => checksumAddress(wrong)).toThrow();
  });
});
