import type { EventType } from "@relay/lifecycle";
import { WebhookDeliveryStatus as DeliveryStatuses } from "../generated/enums";
import type { JsonValue } from "../transactions/transaction-record";

/** The records of event callbacks and their deliveries (docs/webhooks.md), as the repositories return them. */

/** PENDING until DELIVERED (2xx), FAILED (retries exhausted) or ABANDONED (registration disabled). */
export type WebhookDeliveryStatus = DeliveryStatuses;

/** A registration, without its sealed secret. */
export interface EventCallbackRecord {
  id: string;
  projectId: string;
  callbackUrl: string;
  eventType: EventType;
  createdAt: Date;
  /** Set when the receiver answered 410 or the project deleted the registration. */
  disabledAt: Date | null;
  disabledReason: string | null;
}

export interface EventCallbackWithSecret extends EventCallbackRecord {
  /** Sealed with @relay/secrets under the webhook key, the registration's id as associated data. */
  encryptedSecret: string;
  /**
   * The secret the last rotation retired, sealed like `encryptedSecret` with associated data of its
   * own (@relay/webhooks `sealPreviousWebhookSecret`); deliveries are signed with it too until
   * `previousSecretExpiresAt`. Both null when there is none.
   */
  previousEncryptedSecret: string | null;
  previousSecretExpiresAt: Date | null;
}

/** What a rotation writes: the new sealed secret, and the retired one with the end of its grace period (or none). */
export interface SecretRotation {
  encryptedSecret: string;
  previous: { encryptedSecret: string; expiresAt: Date } | null;
}

/** One delivery attempt: the contract's stats entry plus the delivery it belongs to. */
export interface EventCallbackStatRecord {
  id: bigint;
  eventCallbackId: string;
  deliveryId: string | null;
  createdAt: Date;
  /** `{eventId, deliveryId, attempt, durationMs, error?}` */
  data: JsonValue;
  /** 0 = no HTTP response (time-out, connection refused). */
  responseStatus: number;
}

export interface EventCallbackWithStats extends EventCallbackRecord {
  /** The most recent attempts, newest first. */
  stats: EventCallbackStatRecord[];
}

export interface WebhookDeliveryRecord {
  id: string;
  eventId: string;
  eventCallbackId: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  /** When the next attempt is due; null once the delivery is final. */
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  /** What a receiver's deliveries are ordered by: the transactionId of a status change, else null. */
  subject: string | null;
  /** The event's time (not the dispatch's). A subject's deliveries are ordered by their events' `seq`, not by this. */
  createdAt: Date;
}

/** Picks the record's fields by name: statements may return more columns than these. */
export const toDelivery = (row: WebhookDeliveryRecord): WebhookDeliveryRecord => ({
  id: row.id,
  eventId: row.eventId,
  eventCallbackId: row.eventCallbackId,
  status: row.status,
  attempts: row.attempts,
  nextAttemptAt: row.nextAttemptAt,
  deliveredAt: row.deliveredAt,
  subject: row.subject,
  createdAt: row.createdAt,
});

export type StatRow = Omit<EventCallbackStatRecord, "id"> & { id: string };

export const toStat = (row: StatRow): EventCallbackStatRecord => ({
  id: BigInt(row.id),
  eventCallbackId: row.eventCallbackId,
  deliveryId: row.deliveryId,
  createdAt: row.createdAt,
  data: row.data,
  responseStatus: row.responseStatus,
});
