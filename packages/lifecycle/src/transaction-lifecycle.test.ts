import { AppError } from "@relay/core";
import {
  assertCanMove,
  canMove,
  FINAL_STATUSES,
  isFinal,
  nextStatuses,
  TRANSACTION_STATUSES,
  UNFINISHED_STATUSES,
  type TransactionStatus,
} from "./transaction-lifecycle";

// docs/transactions.md, "Lifecycle", written out again on purpose: the test is the second copy.
const DOCUMENTED: Record<TransactionStatus, TransactionStatus[]> = {
  PENDING: ["PENDING", "SUBMITTED", "INVALID", "PAUSED", "FAILED", "CANCELLED", "EXPIRED"],
  PAUSED: ["PENDING", "FAILED", "CANCELLED", "EXPIRED"],
  SUBMITTED: ["SUBMITTED", "CONFIRMED", "REVERTED", "FAILED", "CANCELLED"],
  CONFIRMED: [],
  REVERTED: [],
  INVALID: [],
  FAILED: [],
  CANCELLED: [],
  EXPIRED: [],
};

test("the statuses are the Postgres enum's, in its order", () => {
  expect(TRANSACTION_STATUSES).toEqual(["PENDING", "SUBMITTED", "CONFIRMED", "REVERTED", "INVALID", "PAUSED", "FAILED", "CANCELLED", "EXPIRED"]);
});

test("canMove allows exactly the documented moves, for every pair of statuses", () => {
  const pairs = TRANSACTION_STATUSES.flatMap((from) => TRANSACTION_STATUSES.map((to) => [from, to] as const));
  expect(pairs).toHaveLength(81);
  for (const [from, to] of pairs) {
    expect({ from, to, allowed: canMove(from, to) }).toEqual({ from, to, allowed: DOCUMENTED[from].includes(to) });
  }
  for (const from of TRANSACTION_STATUSES) expect([...nextStatuses(from)].sort()).toEqual([...DOCUMENTED[from]].sort());
});

test("final statuses are CONFIRMED, REVERTED, INVALID, FAILED, CANCELLED and EXPIRED; the others are unfinished", () => {
  expect([...FINAL_STATUSES].sort()).toEqual(["CANCELLED", "CONFIRMED", "EXPIRED", "FAILED", "INVALID", "REVERTED"]);
  expect([...UNFINISHED_STATUSES].sort()).toEqual(["PAUSED", "PENDING", "SUBMITTED"]);
  for (const status of TRANSACTION_STATUSES) expect(isFinal(status)).toBe(FINAL_STATUSES.includes(status));
});

test("a replacement (SUBMITTED → SUBMITTED) and the note of a repricing with no room (PENDING → PENDING) are moves; staying in any other status is not", () => {
  expect(canMove("SUBMITTED", "SUBMITTED")).toBe(true);
  expect(canMove("PENDING", "PENDING")).toBe(true);
  for (const status of TRANSACTION_STATUSES.filter((s) => s !== "SUBMITTED" && s !== "PENDING")) expect(canMove(status, status)).toBe(false);
});

test("assertCanMove refuses a move outside the table with a non-retryable INTERNAL error", () => {
  expect(() => assertCanMove("PENDING", "SUBMITTED")).not.toThrow();
  let thrown: unknown;
  try {
    assertCanMove("CONFIRMED", "PENDING");
  } catch (e) {
    thrown = e;
  }
  expect(thrown).toBeInstanceOf(AppError);
  expect(thrown).toMatchObject({ code: "INTERNAL", retryable: false, message: "A transaction cannot move from CONFIRMED to PENDING" });
});
