import { gasCeiling, limitForPeak, withHeadroom } from "./gas-limit";

describe("gas limit headroom", () => {
  it("adds 20 % to the estimate when that fits in the block", () => {
    expect(withHeadroom(100_000n, 30_000_000n)).toBe(120_000n);
  });

  it("stops at the block's gas limit for a call that fits only without all of its headroom", () => {
    expect(withHeadroom(900_000n, 1_000_000n)).toBe(1_000_000n);
  });

  it("stops at EIP-7825's 2^24 per transaction, whatever the block allows", () => {
    expect(withHeadroom(15_000_000n, 45_000_000n)).toBe(16_777_216n);
  });

  it("keeps the headroom, within the block, for an estimate above 2^24: that chain has no such cap", () => {
    expect(withHeadroom(20_000_000n, 45_000_000n)).toBe(24_000_000n);
    expect(withHeadroom(20_000_000n, 1_000_000_000_000_000n)).toBe(24_000_000n);
  });

  it("never goes below the estimate: a call above the block's limit is the node's to refuse", () => {
    expect(withHeadroom(50_000_000n, 45_000_000n)).toBe(50_000_000n);
  });
});

describe("gas ceiling", () => {
  it("is the block's gas limit below 2^24, and 2^24 above it", () => {
    expect(gasCeiling(1_000_000n)).toBe(1_000_000n);
    expect(gasCeiling(45_000_000n)).toBe(16_777_216n);
  });

  it("is the block's for a chain whose estimates go past 2^24", () => {
    expect(gasCeiling(45_000_000n, 20_000_000n)).toBe(45_000_000n);
  });
});

describe("limit for a call's peak gas", () => {
  it("adds the call stipend and the 1/64 the EVM keeps back from inner calls, rounded up", () => {
    expect(limitForPeak(100_000n)).toBe(103_924n);
    expect(limitForPeak(0n)).toBe(2_337n);
  });
});
