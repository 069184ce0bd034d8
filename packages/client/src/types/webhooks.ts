/** Event callback registrations and the events POSTed to them. */
import type { TransactionStatus } from "./transactions";

export const EVENT_TYPES = ["TransactionStatusChange", "WalletBalanceLow"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface EventCallbackRequest {
  callbackURL: string;
  eventType: EventType;
}

export interface EventCallbackStat {
  createdAt: string;
  data: unknown;
  eventCallbackId: string;
  /** HTTP status of the delivery attempt; 0 = no HTTP response. */
  responseStatus: number;
}

export interface EventCallback {
  callbackURL: string;
  eventType: EventType;
  id: string;
  projectId: string;
  /** The Standard Webhooks secret (whsec_…): keep it, it is shown only here and on rotation. */
  secret: string;
  stats?: EventCallbackStat[] | null;
}

export interface EventCallbackListItem {
  callbackURL: string;
  eventType: EventType;
  id: string;
  projectId: string;
  disabled: boolean;
  disabledReason: string | null;
  stats: EventCallbackStat[];
}

export interface EventCallbackRotated extends Omit<EventCallbackListItem, "stats"> {
  secret: string;
  previousSecretExpiresAt: string | null;
}

export interface EventCallbackDeleted {
  id: string;
  deleted: true;
}

export interface TransactionStatusChangeData {
  transactionId: string;
  chainId: number;
  status: TransactionStatus;
  previousStatus: TransactionStatus | null;
  reason: string | null;
  from: string | null;
  hash: string | null;
  nonce: string | null;
  blockNumber: string | null;
  [field: string]: unknown;
}

export interface WalletBalanceLowData {
  walletAddress: string;
  chainId: number;
  balance: string;
  threshold: string;
  [field: string]: unknown;
}

interface EventBase<T extends EventType, D> {
  id: string;
  eventType: T;
  projectId: string;
  createdAt: string;
  data: D;
}

export type TransactionStatusChangeEvent = EventBase<"TransactionStatusChange", TransactionStatusChangeData>;
export type WalletBalanceLowEvent = EventBase<"WalletBalanceLow", WalletBalanceLowData>;
export type RelayEvent = TransactionStatusChangeEvent | WalletBalanceLowEvent;

/** POST …/eventCallback/{eventCallbackId}/delivery/{deliveryId}/redeliver. */
export interface Redelivery {
  deliveryId: string;
  eventCallbackId: string;
  eventId: string;
  status: "PENDING";
  previousStatus: "PENDING" | "DELIVERED" | "FAILED";
}

/** GET …/transactions/{transactionId}/events: the events a transaction produced, and their deliveries. */
export interface TransactionEvents {
  events: {
    eventId: string;
    eventType: EventType;
    payload: unknown;
    createdAt: string;
    dispatchedAt: string | null;
    deliveries: {
      deliveryId: string;
      eventCallbackId: string;
      callbackURL: string;
      status: "PENDING" | "DELIVERED" | "FAILED" | "ABANDONED";
      attempts: number;
      nextAttemptAt: string | null;
      deliveredAt: string | null;
      lastResponseStatus: number | null;
    }[];
  }[];
}
