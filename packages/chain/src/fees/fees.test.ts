import { bumpFees, capBelowMarket, capsWith, maxGasCost, priceFees, replacementCeiling, roomUnderCaps, type FeeCaps, type Fees, type FeeSource } from "./fees";

const noCaps: FeeCaps = { maxFeePerGasCapWei: null, maxPriorityFeePerGasCapWei: null };
const gwei = (n: number) => BigInt(Math.round(n * 1000)) * 1_000_000n;
const caps = (maxFeePerGas: bigint | null, maxPriorityFeePerGas: bigint | null = null): FeeCaps => ({
  maxFeePerGasCapWei: maxFeePerGas,
  maxPriorityFeePerGasCapWei: maxPriorityFeePerGas,
});

/**
 * A node as pricing sees it: its latest block and its answers to JSON-RPC methods (hex
 * quantities; an Error is thrown, as a node without the method would). Records what was asked.
 */
function node(block: { baseFeePerGas?: bigint | null } | null, answers: Record<string, bigint | Error>) {
  const asked: string[] = [];
  const source: FeeSource = {
    getBlock: async () => block,
    send: async (method) => {
      asked.push(method);
      const answer = answers[method];
      if (answer === undefined || answer instanceof Error) throw answer ?? new Error(`the method ${method} does not exist`);
      return `0x${answer.toString(16)}`;
    },
  };
  return { source, asked };
}

describe("priceFees on a chain with a base fee (EIP-1559)", () => {
  it("offers twice the base fee plus the node's tip", async () => {
    const { source, asked } = node({ baseFeePerGas: gwei(10) }, { eth_maxPriorityFeePerGas: gwei(2), eth_gasPrice: gwei(50) });
    expect(await priceFees(source, noCaps)).toEqual({ type: 2, maxFeePerGas: gwei(22), maxPriorityFeePerGas: gwei(2) });
    expect(asked).toEqual(["eth_maxPriorityFeePerGas"]);
  });

  it("fails, to be retried, when the node answers no latest block, instead of pricing as a legacy chain", async () => {
    const { source, asked } = node(null, { eth_maxPriorityFeePerGas: gwei(2), eth_gasPrice: gwei(50) });
    await expect(priceFees(source, noCaps)).rejects.toMatchObject({ code: "UNAVAILABLE", retryable: true });
    expect(asked).toEqual([]);
  });

  it("treats a base fee of zero as a base fee, not as a legacy chain", async () => {
    const { source } = node({ baseFeePerGas: 0n }, { eth_maxPriorityFeePerGas: gwei(2), eth_gasPrice: gwei(50) });
    expect(await priceFees(source, noCaps)).toEqual({ type: 2, maxFeePerGas: gwei(2), maxPriorityFeePerGas: gwei(2) });
  });

  it("tips 1 gwei when the node has no eth_maxPriorityFeePerGas", async () => {
    const { source } = node({ baseFeePerGas: gwei(10) }, { eth_maxPriorityFeePerGas: new Error("the method eth_maxPriorityFeePerGas does not exist") });
    expect(await priceFees(source, noCaps)).toEqual({ type: 2, maxFeePerGas: gwei(21), maxPriorityFeePerGas: gwei(1) });
  });

  it("caps each field at the chain's cap", async () => {
    const { source } = node({ baseFeePerGas: gwei(10) }, { eth_maxPriorityFeePerGas: gwei(2) });
    expect(await priceFees(source, caps(gwei(15), gwei(1.5)))).toEqual({ type: 2, maxFeePerGas: gwei(15), maxPriorityFeePerGas: gwei(1.5) });
    expect(await priceFees(source, caps(gwei(15)))).toEqual({ type: 2, maxFeePerGas: gwei(15), maxPriorityFeePerGas: gwei(2) });
    expect(await priceFees(source, caps(null, gwei(1.5)))).toEqual({ type: 2, maxFeePerGas: gwei(22), maxPriorityFeePerGas: gwei(1.5) });
  });

  it("never tips more than the capped max fee", async () => {
    const { source } = node({ baseFeePerGas: gwei(10) }, { eth_maxPriorityFeePerGas: gwei(2) });
    expect(await priceFees(source, caps(gwei(1)))).toEqual({ type: 2, maxFeePerGas: gwei(1), maxPriorityFeePerGas: gwei(1) });
  });
});

describe("priceFees on a chain without a base fee (legacy gas price)", () => {
  it("offers the node's gas price, as a type-0 transaction, whether the block's base fee is null or absent", async () => {
    for (const block of [{ baseFeePerGas: null }, {}]) {
      const { source, asked } = node(block, { eth_gasPrice: gwei(3), eth_maxPriorityFeePerGas: gwei(2) });
      expect(await priceFees(source, noCaps)).toEqual({ type: 0, gasPrice: gwei(3) });
      expect(asked).toEqual(["eth_gasPrice"]);
    }
  });

  it("caps the gas price at the chain's max-fee cap", async () => {
    const { source } = node({ baseFeePerGas: null }, { eth_gasPrice: gwei(3) });
    expect(await priceFees(source, caps(gwei(2)))).toEqual({ type: 0, gasPrice: gwei(2) });
    expect(await priceFees(source, caps(gwei(5)))).toEqual({ type: 0, gasPrice: gwei(3) });
  });

  it("does not apply the priority-fee cap: a legacy gas price has no separate tip", async () => {
    const { source } = node({ baseFeePerGas: null }, { eth_gasPrice: gwei(3) });
    expect(await priceFees(source, caps(null, gwei(1)))).toEqual({ type: 0, gasPrice: gwei(3) });
  });

  it("fails when the node cannot tell a gas price (the job retries)", async () => {
    const { source } = node({ baseFeePerGas: null }, { eth_gasPrice: new Error("connection refused") });
    await expect(priceFees(source, noCaps)).rejects.toThrow("connection refused");
  });
});

describe("roomUnderCaps", () => {
  const eip1559 = (maxFeePerGas: bigint, maxPriorityFeePerGas: bigint): Fees => ({ type: 2, maxFeePerGas, maxPriorityFeePerGas });
  const caps = (maxFeePerGasCapWei: bigint | null, maxPriorityFeePerGasCapWei: bigint | null = null): FeeCaps => ({ maxFeePerGasCapWei, maxPriorityFeePerGasCapWei });

  it("is true when every fee field 12.5 % higher stays within the caps, and false exactly when bumpFees can find none whatever the market", () => {
    const previous = eip1559(100n, 10n);
    expect(roomUnderCaps(previous, caps(null))).toBe(true);
    expect(roomUnderCaps(previous, caps(113n))).toBe(true);
    expect(roomUnderCaps(previous, caps(112n))).toBe(false);
    expect(roomUnderCaps(previous, caps(null, 11n))).toBe(false);
    for (const market of [eip1559(50n, 1n), eip1559(100n, 10n), eip1559(1_000n, 100n)]) {
      expect(bumpFees(previous, market, caps(112n))).toBeNull();
      expect(bumpFees(previous, market, caps(null, 11n))).toBeNull();
    }
  });

  it("reads a legacy attempt's gas price against the max-fee cap", () => {
    expect(roomUnderCaps({ type: 0, gasPrice: 100n }, caps(113n))).toBe(true);
    expect(roomUnderCaps({ type: 0, gasPrice: 100n }, caps(112n))).toBe(false);
  });
});

describe("bumpFees", () => {
  it("raises both EIP-1559 fields by at least 12.5 %", () => {
    const previous = { type: 2 as const, maxFeePerGas: gwei(40), maxPriorityFeePerGas: gwei(2) };
    const next = bumpFees(previous, { type: 2, maxFeePerGas: gwei(20), maxPriorityFeePerGas: gwei(1) }, noCaps);
    expect(next).toEqual({ type: 2, maxFeePerGas: gwei(45), maxPriorityFeePerGas: 2_250_000_000n });
  });

  it("without a cap of the chain's, stops at three times today's price: a stuck transaction is not bid up for ever", () => {
    const market = { type: 2 as const, maxFeePerGas: gwei(10), maxPriorityFeePerGas: gwei(1) };
    // 26 → 29.25 gwei is within 3 × 10; 28 → 31.5 is not, and no smaller bump outbids 28.
    expect(bumpFees({ type: 2, maxFeePerGas: gwei(26), maxPriorityFeePerGas: gwei(1) }, market, noCaps)).toMatchObject({ maxFeePerGas: 29_250_000_000n });
    expect(bumpFees({ type: 2, maxFeePerGas: gwei(28), maxPriorityFeePerGas: gwei(1) }, market, noCaps)).toBeNull();
    expect(bumpFees({ type: 0, gasPrice: gwei(28) }, { type: 0, gasPrice: gwei(10) }, noCaps)).toBeNull();
    expect(replacementCeiling(market, noCaps)).toBe(gwei(30));
    // Bumping from today's price, stuck period after stuck period, ends after nine replacements.
    let fees: Fees | null = market;
    let replacements = 0;
    while ((fees = bumpFees(fees, market, noCaps))) replacements++;
    expect(replacements).toBe(9);
    // A tip below today's still gets its replacement when the base fee fell: once above the ceiling.
    const fallen = { type: 2 as const, maxFeePerGas: gwei(10), maxPriorityFeePerGas: gwei(2) };
    expect(bumpFees({ type: 2, maxFeePerGas: gwei(28), maxPriorityFeePerGas: gwei(1) }, fallen, noCaps)).toEqual({ type: 2, maxFeePerGas: gwei(31.5), maxPriorityFeePerGas: gwei(2) });
    // The chain's cap, where lower, is the ceiling.
    expect(replacementCeiling(market, { maxFeePerGasCapWei: gwei(15), maxPriorityFeePerGasCapWei: null })).toBe(gwei(15));
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

  it("caps both EIP-1559 fields of a replacement that follows the market", () => {
    const previous = { type: 2 as const, maxFeePerGas: gwei(40), maxPriorityFeePerGas: gwei(2) };
    const market = { type: 2 as const, maxFeePerGas: gwei(100), maxPriorityFeePerGas: gwei(5) };
    expect(bumpFees(previous, market, caps(gwei(60), gwei(3)))).toEqual({ type: 2, maxFeePerGas: gwei(60), maxPriorityFeePerGas: gwei(3) });
    // A priority-fee cap below the 12.5 % bump of the tip leaves no valid replacement either.
    expect(bumpFees(previous, market, caps(gwei(60), gwei(2.2)))).toBeNull();
  });

  it("raises a legacy gas price by 12.5 %, or to the market's, within the max-fee cap", () => {
    const previous = { type: 0 as const, gasPrice: gwei(10) };
    expect(bumpFees(previous, { type: 0, gasPrice: gwei(10) }, caps(gwei(20)))).toEqual({ type: 0, gasPrice: gwei(11.25) });
    expect(bumpFees(previous, { type: 0, gasPrice: gwei(30) }, noCaps)).toEqual({ type: 0, gasPrice: gwei(30) });
    expect(bumpFees(previous, { type: 0, gasPrice: gwei(30) }, caps(gwei(20)))).toEqual({ type: 0, gasPrice: gwei(20) });
    expect(bumpFees(previous, { type: 0, gasPrice: gwei(30) }, caps(gwei(20), 1n))).toEqual({ type: 0, gasPrice: gwei(20) });
  });

  it("keeps a legacy attempt legacy when the chain has since gained a base fee", () => {
    const market = { type: 2 as const, maxFeePerGas: gwei(30), maxPriorityFeePerGas: gwei(1) };
    expect(bumpFees({ type: 0, gasPrice: gwei(10) }, market, caps(gwei(20)))).toEqual({ type: 0, gasPrice: gwei(20) });
  });

  it("computes the most gas can cost", () => {
    expect(maxGasCost({ type: 2, maxFeePerGas: 3n, maxPriorityFeePerGas: 1n }, 10n)).toBe(30n);
    expect(maxGasCost({ type: 0, gasPrice: 2n }, 10n)).toBe(20n);
  });
});

describe("capBelowMarket: a cap that keeps a transaction out of the next block", () => {
  const market = { fees: { type: 2 as const, maxFeePerGas: gwei(42), maxPriorityFeePerGas: gwei(2) }, floor: gwei(22) };
  it("holds only under base fee + tip, not under the 2 × base fee headroom", () => {
    expect(capBelowMarket(market, caps(null))).toBeNull();
    expect(capBelowMarket(market, caps(gwei(30)))).toBeNull();
    expect(capBelowMarket(market, caps(gwei(22)))).toBeNull();
    expect(capBelowMarket(market, caps(gwei(21)))).toBe(gwei(21));
  });
  it("counts the tip within its own cap", () => {
    expect(capBelowMarket(market, caps(gwei(21), gwei(1)))).toBeNull();
  });
  it("holds nothing on a legacy chain, whose suggested gas price is no least price", () => {
    const legacy = { fees: { type: 0 as const, gasPrice: gwei(3) }, floor: null };
    expect(capBelowMarket(legacy, caps(gwei(2)))).toBeNull();
  });
  it("capsWith takes the lower of the chain's cap and the transaction's", () => {
    expect(capsWith(caps(gwei(10), gwei(1)), gwei(5))).toEqual(caps(gwei(5), gwei(1)));
    expect(capsWith(caps(gwei(10)), gwei(50))).toEqual(caps(gwei(10)));
    expect(capsWith(caps(null), gwei(50))).toEqual(caps(gwei(50)));
    expect(capsWith(caps(gwei(10)), null)).toEqual(caps(gwei(10)));
  });
});
