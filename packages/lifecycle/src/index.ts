export {
  assertCanMove,
  canMove,
  ERROR_STATUSES,
  FINAL_STATUSES,
  isFinal,
  nextStatuses,
  TRANSACTION_STATUSES,
  UNFINISHED_STATUSES,
} from "./transaction-lifecycle";
export type { FinalStatus, TransactionStatus, UnfinishedStatus } from "./transaction-lifecycle";
export { EVENT_TYPES } from "./event-types";
export type { EventType } from "./event-types";
export { TRANSACTION_KINDS } from "./transaction-kinds";
export type { TransactionKind } from "./transaction-kinds";
