import {
  transactionStatusChangeEventSchema,
  walletBalanceLowEventSchema,
  webhookEventSchema,
  type TransactionStatusChangeEvent,
  type WalletBalanceLowEvent,
} from "./payloads";

// The shape the outbox writes (packages/db status-change-event.ts): ids and integers as strings, chainId a number.
const statusChange: TransactionStatusChangeEvent = {
  id: "0b9f6c1e-3d2a-4e8b-9f10-7a6b5c4d3e2f",
  eventType: "TransactionStatusChange",
  projectId: "6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b",
  createdAt: "2030-01-02T03:04:05.678Z",
  data: {
    transactionId: "1e2d3c4b-5a69-4788-97a6-b5c4d3e2f1a0",
    chainId: 31337,
    status: "CONFIRMED",
    previousStatus: "SUBMITTED",
    hash: `0x${"ab".repeat(32)}`,
    blockNumber: "12345678901234567890",
    from: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
    nonce: "7",
    reason: null,
  },
};

const balanceLow: WalletBalanceLowEvent = {
  id: "2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f",
  eventType: "WalletBalanceLow",
  projectId: "6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b",
  createdAt: "2030-01-02T03:04:05.678Z",
  data: {
    walletAddress: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
    chainId: 1,
    balance: "99999999999999999",
    threshold: "100000000000000000",
  },
};

describe("event payload schemas", () => {
  it("accept both events, through the union too, and survive a JSON round trip unchanged", () => {
    expect(transactionStatusChangeEventSchema.parse(statusChange)).toEqual(statusChange);
    expect(walletBalanceLowEventSchema.parse(balanceLow)).toEqual(balanceLow);
    for (const event of [statusChange, balanceLow]) {
      expect(webhookEventSchema.parse(JSON.parse(JSON.stringify(event)))).toEqual(event);
    }
  });

  it("accept the first event of a transaction, before anything is known", () => {
    const first = {
      ...statusChange,
      data: { ...statusChange.data, status: "PENDING", previousStatus: null, hash: null, blockNumber: null, from: null, nonce: null },
    };
    expect(webhookEventSchema.safeParse(first).success).toBe(true);
  });

  it("keep fields added later instead of failing (receivers must not break on a new field)", () => {
    const parsed = webhookEventSchema.safeParse({ ...balanceLow, data: { ...balanceLow.data, symbol: "ETH" } });
    expect(parsed.success).toBe(true);
  });

  it.each([
    ["a decimal string for chainId", { data: { ...statusChange.data, chainId: "31337" } }],
    ["a chainId past 2^53 - 1", { data: { ...statusChange.data, chainId: 2 ** 53 } }],
    ["a chainId with a fraction", { data: { ...statusChange.data, chainId: 1.5 } }],
    ["a wei amount as a number", { eventType: "WalletBalanceLow", data: { ...balanceLow.data, balance: 1e17 } }],
    ["a negative decimal", { data: { ...statusChange.data, nonce: "-1" } }],
    ["a leading zero", { data: { ...statusChange.data, blockNumber: "01" } }],
    ["an unknown status", { data: { ...statusChange.data, status: "MINED" } }],
    ["an unknown event type", { eventType: "TransactionMined" }],
    ["a missing field", { data: { ...statusChange.data, reason: undefined } }],
    ["a createdAt with an offset", { createdAt: "2030-01-02T05:04:05.678+02:00" }],
    ["a short hash", { data: { ...statusChange.data, hash: "0xabc" } }],
    ["a non-UUID id", { id: "event-1" }],
  ])("refuse %s", (_name, change) => {
    expect(webhookEventSchema.safeParse({ ...statusChange, ...change }).success).toBe(false);
  });
});
