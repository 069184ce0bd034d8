import { NO_REQUESTED_FIELDS, type TransactionRecord } from "@relay/db";
import { expireIfDue } from "./expire";

const NOW = Date.parse("2030-01-01T00:00:00Z");

function deps(attempts: number) {
  const moves: unknown[] = [];
  return {
    moves,
    deps: {
      now: () => NOW,
      transactions: {
        attempts: async () => Array.from({ length: attempts }, () => ({})),
        move: async (...args: unknown[]) => {
          moves.push(args);
          return true;
        },
      },
    } as unknown as Parameters<typeof expireIfDue>[0],
  };
}

const tx = (expiresAt: Date | null) => ({ projectId: "p", id: "t", request: { ...NO_REQUESTED_FIELDS, expiresAt } }) as unknown as TransactionRecord;

describe("expireIfDue", () => {
  it("moves a transaction with nothing signed to EXPIRED once its expiresAt has passed, with the reason", async () => {
    const { deps: d, moves } = deps(0);
    expect(await expireIfDue(d, tx(new Date(NOW)), "PAUSED")).toBe(true);
    expect(moves).toEqual([["p", "t", { from: "PAUSED", to: "EXPIRED", reason: "expiresAt 2030-01-01T00:00:00.000Z passed before it was sent; nothing was broadcast" }]]);
  });

  it("leaves a transaction without expiresAt, or before it, alone", async () => {
    const { deps: d, moves } = deps(0);
    expect(await expireIfDue(d, tx(null), "PENDING")).toBe(false);
    expect(await expireIfDue(d, tx(new Date(NOW + 1)), "PENDING")).toBe(false);
    expect(moves).toEqual([]);
  });

  it("never expires a transaction with a signed attempt: it may be out already, and is followed to its end", async () => {
    const { deps: d, moves } = deps(1);
    expect(await expireIfDue(d, tx(new Date(NOW - 60_000)), "PENDING")).toBe(false);
    expect(moves).toEqual([]);
  });
});
