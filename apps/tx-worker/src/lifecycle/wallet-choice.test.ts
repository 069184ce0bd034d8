import { randomUUID } from "node:crypto";
import { chooseWallet } from "./wallet-choice";

const wallets = ["0x03", "0x01", "0x02"].map((address, i) => ({ id: `w${i}`, address }));

describe("chooseWallet", () => {
  it("always picks the same wallet for the same transaction, whatever the list order", () => {
    const id = randomUUID();
    expect(chooseWallet(wallets, id)).toBe(chooseWallet([...wallets].reverse(), id));
  });

  it("spreads many transactions evenly over the wallets", () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 3000; i++) {
      const w = chooseWallet(wallets, randomUUID());
      counts.set(w.address, (counts.get(w.address) ?? 0) + 1);
    }
    expect([...counts.values()].every((n) => n > 800 && n < 1200)).toBe(true);
  });

  it("says what to do when the project has no wallet", () => {
    expect(() => chooseWallet([], randomUUID())).toThrow(/no wallet to send from/);
  });
});
