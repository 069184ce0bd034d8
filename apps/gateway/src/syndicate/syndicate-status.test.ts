import { READ_STATUSES } from "@relay/db";
import { TRANSACTION_STATUSES } from "@relay/lifecycle";
import { ATTEMPT_STATUSES, attemptClasses, attemptStatus, statusesWithInvalid, SYNDICATE_STATUS, toStats } from "./syndicate-status";

// docs/syndicate.md, "Transactions and their attempts", written out again: the test is the second copy.
const DOCUMENTED = {
  PENDING: { invalid: false, current: "PENDING", reverted: false, block: false, stats: "Pending" },
  SUBMITTED: { invalid: false, current: "PENDING", reverted: false, block: false, stats: "Submitted" },
  MINED: { invalid: false, current: "PROCESSED", reverted: false, block: true, stats: "Submitted" },
  CONFIRMED: { invalid: false, current: "CONFIRMED", reverted: false, block: true, stats: "Confirmed" },
  REVERTED: { invalid: false, current: "CONFIRMED", reverted: true, block: true, stats: "Failed" },
  INVALID: { invalid: true, current: "ABANDONED", reverted: false, block: false, stats: "Failed" },
  PAUSED: { invalid: false, current: "PAUSED", reverted: false, block: false, stats: "Pending" },
  FAILED: { invalid: false, current: "ABANDONED", reverted: false, block: false, stats: "Failed" },
  CANCELLED: { invalid: false, current: "ABANDONED", reverted: false, block: false, stats: "Failed" },
  EXPIRED: { invalid: false, current: "ABANDONED", reverted: false, block: false, stats: "Failed" },
} as const;

test("every status of the lifecycle is mapped, and a SUBMITTED one seen in a block (MINED), and only those", () => {
  expect(Object.keys(SYNDICATE_STATUS).sort()).toEqual([...TRANSACTION_STATUSES, "MINED"].sort());
  expect(Object.keys(DOCUMENTED).sort()).toEqual([...READ_STATUSES].sort());
});

test.each(READ_STATUSES)("%s maps as docs/syndicate.md says", (status) => {
  const view = SYNDICATE_STATUS[status];
  const doc = DOCUMENTED[status];
  expect({ invalid: view.invalid, current: view.current, reverted: view.reverted, block: view.mined, stats: view.stats }).toEqual(doc);
  expect(attemptStatus(status, true)).toBe(doc.current);
});

test("a superseded attempt is ABANDONED whatever its transaction's status: never pending, never mined", () => {
  for (const status of READ_STATUSES) expect(attemptStatus(status, false)).toBe("ABANDONED");
});

test("invalid is true exactly for INVALID requests", () => {
  expect(statusesWithInvalid(true)).toEqual(["INVALID"]);
  expect(statusesWithInvalid(false)).toEqual(TRANSACTION_STATUSES.filter((s) => s !== "INVALID"));
});

test("the attempt filters select the classes whose derived status and reverted flag match", () => {
  expect(attemptClasses({ reverted: true })).toEqual([{ status: "REVERTED", current: true }]);
  expect(attemptClasses({ statuses: ["CONFIRMED"] })).toEqual([
    { status: "CONFIRMED", current: true },
    { status: "REVERTED", current: true },
  ]);
  expect(attemptClasses({ statuses: ["CONFIRMED"], reverted: false })).toEqual([{ status: "CONFIRMED", current: true }]);
  expect(attemptClasses({ statuses: ["PROCESSED", "SUBMITTED"] })).toEqual([{ status: "MINED", current: true }]);
  const pendingOrPaused = attemptClasses({ statuses: ["PENDING", "PAUSED"] });
  expect(pendingOrPaused).toEqual([
    { status: "PENDING", current: true },
    { status: "SUBMITTED", current: true },
    { status: "PAUSED", current: true },
  ]);
  // Every class lands in exactly one status.
  const all = ATTEMPT_STATUSES.flatMap((s) => attemptClasses({ statuses: [s] }));
  expect(all).toHaveLength(READ_STATUSES.length * 2);
  expect(attemptClasses({ reverted: false })).toHaveLength(READ_STATUSES.length * 2 - 1);
});

test("the stats count every request in exactly one of the four numbers", () => {
  const counts = { PENDING: 1, SUBMITTED: 2, CONFIRMED: 4, REVERTED: 8, INVALID: 16, PAUSED: 32, FAILED: 64, EXPIRED: 128 };
  expect(toStats(counts)).toEqual({
    numberOfConfirmedTransactions: 4,
    numberOfSubmittedTransactions: 2,
    numberOfPendingTransactions: 1 + 32,
    numberOfFailedTransactions: 8 + 16 + 64 + 128,
  });
  expect(toStats({})).toEqual({ numberOfConfirmedTransactions: 0, numberOfSubmittedTransactions: 0, numberOfPendingTransactions: 0, numberOfFailedTransactions: 0 });
});
