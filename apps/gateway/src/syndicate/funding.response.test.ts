import { TRANSACTION_STATUSES } from "@relay/lifecycle";
import type { TopUpRecord } from "@relay/db";
import { toFundingTransaction } from "./funding.response";
import { fundingTransaction } from "./funding.schema";

const topUp = (over: Partial<TopUpRecord> = {}): TopUpRecord => ({
  id: "6f1c2f9e-3a55-4a52-9a56-0b7f1f3f1a01",
  createdAt: new Date("2026-11-26T10:00:00.000Z"),
  updatedAt: new Date("2026-11-26T10:00:05.000Z"),
  chainId: "8453",
  projectId: "0b6e8c61-2d1f-4c8b-8a4e-3f7f0b1d2c3e",
  fromAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  toAddress: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
  amount: "98000000000000000",
  hash: null,
  blockNumber: null,
  status: "PENDING",
  signedTxn: null,
  ...over,
});

describe("toFundingTransaction", () => {
  it("maps every status of ours to one of Syndicate's four funding statuses", () => {
    const mapped = Object.fromEntries(TRANSACTION_STATUSES.map((s) => [s, toFundingTransaction(topUp({ status: s })).status]));
    expect(mapped).toEqual({ PENDING: "PENDING", PAUSED: "PENDING", SUBMITTED: "SUBMITTED", CONFIRMED: "CONFIRMED", REVERTED: "FAILED", INVALID: "FAILED", FAILED: "FAILED", CANCELLED: "FAILED", EXPIRED: "FAILED" });
  });

  it("fills what is not known yet with empty values the SDK's schema takes, and the rest as numbers and 0x hex", () => {
    const pending = toFundingTransaction(topUp());
    expect(pending).toMatchObject({ hash: "", signedTxn: "", block: 0, chainId: 8453, createdAt: "2026-11-26T10:00:00.000Z" });
    expect(fundingTransaction.parse(pending)).toEqual(pending);
    const mined = toFundingTransaction(topUp({ status: "CONFIRMED", hash: "0xabc", blockNumber: "1234567", signedTxn: "02f8" }));
    expect(mined).toMatchObject({ hash: "0xabc", signedTxn: "0x02f8", block: 1234567, status: "CONFIRMED" });
  });
});
