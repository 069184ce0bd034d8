import { currentPayload } from "./stored-payload";
import { webhookEventSchema } from "./payloads";

const stored = {
  id: "0b9f6c1e-3d2a-4e8b-9f10-7a6b5c4d3e2f",
  eventType: "TransactionStatusChange",
  projectId: "6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b",
  createdAt: "2030-01-02T03:04:05.678Z",
  data: {
    transactionId: "1e2d3c4b-5a69-4788-97a6-b5c4d3e2f1a0",
    chainId: "31337",
    status: "PENDING",
    previousStatus: null,
    hash: null,
    blockNumber: null,
    from: null,
    nonce: null,
    reason: null,
  },
};

describe("currentPayload", () => {
  it("gives an event stored with chainId as a decimal string the number receivers are promised, and nothing else changes", () => {
    const current = currentPayload(stored);
    expect(current).toEqual({ ...stored, data: { ...stored.data, chainId: 31337 } });
    expect(webhookEventSchema.safeParse(current).success).toBe(true);
    expect(stored.data.chainId).toBe("31337"); // the stored object is not altered
  });

  it("converts a WalletBalanceLow stored the same way", () => {
    const balance = { ...stored, eventType: "WalletBalanceLow", data: { walletAddress: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", chainId: "8453", balance: "1", threshold: "2" } };
    expect(currentPayload(balance)).toEqual({ ...balance, data: { ...balance.data, chainId: 8453 } });
  });

  it("passes a payload already in today's shape through as it is", () => {
    const today = { ...stored, data: { ...stored.data, chainId: 31337 } };
    expect(currentPayload(today)).toBe(today);
  });

  it.each([
    ["a chain id past 2^53 - 1", "9007199254740993"],
    ["a leading zero", "031337"],
    ["not a number", "mainnet"],
  ])("leaves %s as it was stored rather than send a number that is not the chain's", (_name, chainId) => {
    const odd = { ...stored, data: { ...stored.data, chainId } };
    expect(currentPayload(odd)).toBe(odd);
  });

  it("passes through what is not an event", () => {
    for (const value of [null, "text", [1], { data: null }]) expect(currentPayload(value)).toBe(value);
  });
});
