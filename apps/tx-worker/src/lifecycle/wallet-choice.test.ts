import { NO_REQUESTED_FIELDS } from "@relay/db";
import { randomUUID } from "node:crypto";
import { walletCandidates, walletOrder } from "./wallet-choice";

const wallets = ["0x03", "0x01", "0x02"].map((address, i) => ({ id: `w${i}`, address }));
const addresses = (list: { address: string }[]) => list.map((w) => w.address);

describe("walletOrder", () => {
  it("gives the same transaction the same order, whatever the list order", () => {
    const id = randomUUID();
    expect(addresses(walletOrder(wallets, id))).toEqual(addresses(walletOrder([...wallets].reverse(), id)));
  });

  it("holds every wallet once, the others following the preferred one in address order", () => {
    for (let i = 0; i < 50; i++) {
      const order = addresses(walletOrder(wallets, randomUUID()));
      expect([...order].sort()).toEqual(["0x01", "0x02", "0x03"]);
      const start = ["0x01", "0x02", "0x03"].indexOf(order[0]!);
      expect(order).toEqual([0, 1, 2].map((k) => ["0x01", "0x02", "0x03"][(start + k) % 3]));
    }
  });

  it("spreads many transactions' preferred wallets evenly", () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 3000; i++) {
      const w = walletOrder(wallets, randomUUID())[0]!;
      counts.set(w.address, (counts.get(w.address) ?? 0) + 1);
    }
    expect([...counts.values()].every((n) => n > 800 && n < 1200)).toBe(true);
  });

  it("says what to do when the project has no wallet", () => {
    expect(() => walletOrder([], randomUUID())).toThrow(/no wallet to send from/);
  });
});

describe("walletCandidates", () => {
  const pool = [
    { address: "0x01", isActive: true, retiredAt: null },
    { address: "0x02", isActive: false, retiredAt: null },
    { address: "0x03", isActive: false, retiredAt: new Date() },
    { address: "0x04", isActive: true, retiredAt: null },
  ];

  it("offers a transaction without a nonce only the active wallets, never an inactive or retired one", () => {
    for (let i = 0; i < 50; i++) {
      expect(walletCandidates(pool, { id: randomUUID(), nonce: null, fromAddress: null, kind: "CALL" as const, request: NO_REQUESTED_FIELDS }).map((w) => w.address).sort()).toEqual(["0x01", "0x04"]);
    }
  });

  it("keeps a transaction that holds a nonce on its wallet, also once that wallet is inactive or retired, so it finishes", () => {
    for (const address of ["0x02", "0x03"]) {
      expect(walletCandidates(pool, { id: randomUUID(), nonce: 7n, fromAddress: address, kind: "CALL" as const, request: NO_REQUESTED_FIELDS }).map((w) => w.address)).toEqual([address]);
    }
  });

  it("offers none when every wallet is inactive or retired (the transaction waits)", () => {
    expect(walletCandidates(pool.slice(1, 3), { id: randomUUID(), nonce: null, fromAddress: null, kind: "CALL" as const, request: NO_REQUESTED_FIELDS })).toEqual([]);
  });

  it("sends a top-up from its funding wallet only, while it is active; from nothing else when that wallet is inactive or gone", () => {
    expect(walletCandidates(pool, { id: randomUUID(), nonce: null, fromAddress: "0x04", kind: "FUNDING" as const, request: NO_REQUESTED_FIELDS }).map((w) => w.address)).toEqual(["0x04"]);
    expect(walletCandidates(pool, { id: randomUUID(), nonce: null, fromAddress: "0x02", kind: "FUNDING" as const, request: NO_REQUESTED_FIELDS })).toEqual([]);
    expect(walletCandidates(pool, { id: randomUUID(), nonce: null, fromAddress: "0x09", kind: "FUNDING" as const, request: NO_REQUESTED_FIELDS })).toEqual([]);
  });

  it("sends a call whose request named a wallet (fromAddress) from that wallet only, while it is active; until it holds a nonce", () => {
    const named = (address: string) => ({ ...NO_REQUESTED_FIELDS, fromAddress: address });
    for (let i = 0; i < 20; i++) {
      expect(walletCandidates(pool, { id: randomUUID(), nonce: null, fromAddress: null, kind: "CALL" as const, request: named("0x04") }).map((w) => w.address)).toEqual(["0x04"]);
    }
    expect(walletCandidates(pool, { id: randomUUID(), nonce: null, fromAddress: null, kind: "CALL" as const, request: named("0x02") })).toEqual([]);
    expect(walletCandidates(pool, { id: randomUUID(), nonce: 3n, fromAddress: "0x04", kind: "CALL" as const, request: named("0x04") }).map((w) => w.address)).toEqual(["0x04"]);
  });
});
