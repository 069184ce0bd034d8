import { EVENT_TYPES, TRANSACTION_KINDS, TRANSACTION_STATUSES, type EventType, type TransactionKind, type TransactionStatus } from "@relay/lifecycle";
import { CUSTODY_BACKENDS, type CustodyBackendName } from "@relay/core";
import { CustodyBackend as PrismaCustodyBackend, EventType as PrismaEventType, TransactionKind as PrismaTransactionKind, TransactionStatus as PrismaTransactionStatus } from "./generated/enums";

/**
 * prisma/schema.prisma has to name the statuses and event types again, as Postgres enums; these
 * hold its copies to the lifecycle's lists, so neither can change without the other.
 */

// Assignable both ways: a name in one and not the other does not compile.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const statusTypesAgree: Same<TransactionStatus, PrismaTransactionStatus> = true;
const eventTypesAgree: Same<EventType, PrismaEventType> = true;
const kindsAgree: Same<TransactionKind, PrismaTransactionKind> = true;

test("the Postgres enum TransactionStatus names the lifecycle's statuses, in the same order", () => {
  expect(statusTypesAgree).toBe(true);
  expect(Object.values(PrismaTransactionStatus)).toEqual([...TRANSACTION_STATUSES]);
});

test("the Postgres enum EventType names the lifecycle's event types, in the same order", () => {
  expect(eventTypesAgree).toBe(true);
  expect(Object.values(PrismaEventType)).toEqual([...EVENT_TYPES]);
});

test("the Postgres enum TransactionKind names the lifecycle's transaction kinds, in the same order", () => {
  expect(kindsAgree).toBe(true);
  expect(Object.values(PrismaTransactionKind)).toEqual([...TRANSACTION_KINDS]);
});

test("the Postgres enum CustodyBackend names @relay/core's custody backends, in the same order", () => {
  const backendsAgree: Same<CustodyBackendName, PrismaCustodyBackend> = true;
  expect(backendsAgree).toBe(true);
  expect(Object.values(PrismaCustodyBackend)).toEqual([...CUSTODY_BACKENDS]);
});
