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
  const tx = (over: Partial<{ nonce: bigint | null; fromAddress: string | null; kind: "CALL" | "FUNDING" }>) => ({ id: randomUUID(), nonce: null, fromAddress: null, kind: "CALL" as const, ...over });

  it("gives a call without a nonce every wallet of the project, in its order", () => {
    const call = tx({});
    expect(addresses(walletCandidates(wallets, call))).toEqual(addresses(walletOrder(wallets, call.id)));
  });

  it("keeps a bound call on its wallet", () => {
    expect(addresses(walletCandidates(wallets, tx({ nonce: 4n, fromAddress: "0x02" })))).toEqual(["0x02"]);
  });

  it("sends a top-up from its funding wallet only, before any nonce is bound, and from nothing else when that wallet is gone", () => {
    expect(addresses(walletCandidates(wallets, tx({ kind: "FUNDING", fromAddress: "0x03" })))).toEqual(["0x03"]);
    expect(walletCandidates(wallets, tx({ kind: "FUNDING", fromAddress: "0x09" }))).toEqual([]);
  });
});
