import type { AttemptReadRecord } from "@relay/db";
import { decodedData, toSyndicateAttempt } from "./transaction-reads.response";

test("decodedData keys the stored arguments by parameter name, by index when unnamed, tuples as objects, also inside arrays", () => {
  expect(
    decodedData("function setTransfers((address to, uint256 amount)[] transfers, uint8, (bytes32, bool on) pair)", [
      [["0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "1"], ["0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", "2"]],
      "7",
      ["0x" + "ab".repeat(32), true],
    ]),
  ).toEqual({
    transfers: [
      { to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", amount: "1" },
      { to: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", amount: "2" },
    ],
    "1": "7",
    pair: { "0": "0x" + "ab".repeat(32), on: true },
  });
  expect(decodedData("ping()", [])).toEqual({});
  // Arguments stored keyed already are answered as they are.
  expect(decodedData("setValue(uint256 value)", { value: "42" })).toEqual({ value: "42" });
});

describe("an attempt's Syndicate fields", () => {
  const base: AttemptReadRecord = {
    transactionId: "9b0a3e52-4f0b-4e8f-9d7a-111111111111",
    hash: "0x01",
    chainId: 31_337n,
    fromAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    nonce: 5n,
    rawTransaction: "0x02",
    createdAt: new Date("2026-11-26T10:00:00Z"),
    status: "CONFIRMED",
    blockNumber: 120n,
    transactionUpdatedAt: new Date("2026-11-26T10:05:00Z"),
    current: true,
    version: 1,
    nextCreatedAt: null,
  };

  it("the mined attempt of a final transaction carries its block; a superseded one reads block 0, ABANDONED, updated when replaced", () => {
    expect(toSyndicateAttempt(base)).toMatchObject({ status: "CONFIRMED", block: 120, reverted: false, nonce: 5, chainId: 31_337, version: 1, updatedAt: "2026-11-26T10:05:00.000Z" });
    const replaced = { ...base, current: false, version: 0, nextCreatedAt: new Date("2026-11-26T10:01:00Z") };
    expect(toSyndicateAttempt(replaced)).toMatchObject({ status: "ABANDONED", block: 0, reverted: false, updatedAt: "2026-11-26T10:01:00.000Z" });
  });

  it("reverted only on the mined attempt of a REVERTED transaction; no block while not final", () => {
    expect(toSyndicateAttempt({ ...base, status: "REVERTED" })).toMatchObject({ status: "CONFIRMED", reverted: true, block: 120 });
    expect(toSyndicateAttempt({ ...base, status: "REVERTED", current: false })).toMatchObject({ status: "ABANDONED", reverted: false, block: 0 });
    expect(toSyndicateAttempt({ ...base, status: "SUBMITTED", blockNumber: null })).toMatchObject({ status: "PENDING", block: 0 });
  });
});
