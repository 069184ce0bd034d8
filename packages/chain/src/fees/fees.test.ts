import { bumpFees, maxGasCost, type FeeCaps } from "./fees";

const noCaps: FeeCaps = { maxFeePerGasCapWei: null, maxPriorityFeePerGasCapWei: null };
const gwei = (n: number) => BigInt(n) * 1_000_000_000n;

describe("bumpFees", () => {
  it("raises both EIP-1559 fields by at least 12.5 %", () => {
    const previous = { type: 2 as const, maxFeePerGas: gwei(40), maxPriorityFeePerGas: gwei(2) };
    const next = bumpFees(previous, { type: 2, maxFeePerGas: gwei(10), maxPriorityFeePerGas: gwei(1) }, noCaps);
    expect(next).toEqual({ type: 2, maxFeePerGas: gwei(45), maxPriorityFeePerGas: 2_250_000_000n });
  });

  it("follows the market when it rose more than 12.5 %", () => {
    const previous = { type: 2 as const, maxFeePerGas: gwei(10), maxPriorityFeePerGas: gwei(1) };
    expect(bumpFees(previous, { type: 2, maxFeePerGas: gwei(50), maxPriorityFeePerGas: gwei(3) }, noCaps)).toEqual({
      type: 2,
      maxFeePerGas: gwei(50),
      maxPriorityFeePerGas: gwei(3),
    });
  });

  it("bumps tiny legacy prices by at least one wei", () => {
    expect(bumpFees({ type: 0, gasPrice: 1n }, { type: 0, gasPrice: 1n }, noCaps)).toEqual({ type: 0, gasPrice: 2n });
  });

  it("gives up (null) when the cap leaves no room for a valid replacement", () => {
    const caps = { maxFeePerGasCapWei: gwei(44), maxPriorityFeePerGasCapWei: null };
    const previous = { type: 2 as const, maxFeePerGas: gwei(40), maxPriorityFeePerGas: gwei(2) };
    expect(bumpFees(previous, previous, caps)).toBeNull();
    expect(bumpFees({ type: 0, gasPrice: gwei(40) }, { type: 0, gasPrice: gwei(40) }, caps)).toBeNull();
  });

  it("computes the most gas can cost", () => {
    expect(maxGasCost({ type: 2, maxFeePerGas: 3n, maxPriorityFeePerGas: 1n }, 10n)).toBe(30n);
    expect(maxGasCost({ type: 0, gasPrice: 2n }, 10n)).toBe(20n);
  });
});
