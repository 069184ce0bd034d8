import { createBatcher, type BatcherOptions } from "@relay/core";
import type { EventType } from "@relay/lifecycle";
import type { Sql } from "../client";
import type { JsonValue } from "../transactions/transaction-record";
import { FIND_DUE, FIND_FOR_DELIVERY, FINISH_DELIVERY, RECORD_ATTEMPTS, REDELIVER } from "./webhook-delivery.sql";
import {
  toDelivery,
  type EventCallbackWithSecret,
  type WebhookDeliveryRecord,
  type WebhookDeliveryStatus,
} from "./webhook-records";

/**
 * Deliveries of events to registrations, as the webhook worker drives them (docs/webhooks.md,
 * "Deliver" and "Order per subject"). The worker decides what an answer means (2xx, 410, retry
 * or give up, when); these statements apply it, each in one round trip.
 */

export interface DeliveryInput {
  delivery: WebhookDeliveryRecord;
  event: { id: string; eventType: EventType; projectId: string; createdAt: Date; payload: JsonValue };
  registration: EventCallbackWithSecret;
  /**
   * A PENDING delivery of an older event of the same subject to the same registration exists: this
   * one waits, so a receiver sees a transaction's statuses in order.
   */
  heldBack: boolean;
  /** When the earliest of the deliveries holding this one back is next tried (null if none is). */
  heldBackUntil: Date | null;
}

/** What the delivery becomes after an attempt. */
export type AttemptOutcome =
  | { status: "PENDING"; nextAttemptAt: Date }
  | { status: Exclude<WebhookDeliveryStatus, "PENDING"> };

export interface AttemptInput {
  /** The HTTP status, 0 when there was no HTTP response. */
  responseStatus: number;
  /** Stored in the stats entry beside the eventId, deliveryId and attempt number added here. */
  data: { durationMs: number; error?: string };
  next: AttemptOutcome;
}

export interface RecordedAttempt {
  delivery: WebhookDeliveryRecord;
  /** False when the delivery was no longer PENDING: the attempt was recorded, the status kept. */
  applied: boolean;
}

type DeliveryRow = WebhookDeliveryRecord & {
  eventType: EventType;
  projectId: string;
  payload: JsonValue;
  eventCreatedAt: Date;
  callbackUrl: string;
  encryptedSecret: string;
  previousEncryptedSecret: string | null;
  previousSecretExpiresAt: Date | null;
  callbackCreatedAt: Date;
  disabledAt: Date | null;
  disabledReason: string | null;
  heldBack: boolean;
  heldBackUntil: Date | null;
};

const toDeliveryInput = (row: DeliveryRow): DeliveryInput => ({
  delivery: toDelivery(row),
  event: { id: row.eventId, eventType: row.eventType, projectId: row.projectId, createdAt: row.eventCreatedAt, payload: row.payload },
  registration: {
    id: row.eventCallbackId,
    projectId: row.projectId,
    callbackUrl: row.callbackUrl,
    eventType: row.eventType,
    encryptedSecret: row.encryptedSecret,
    previousEncryptedSecret: row.previousEncryptedSecret,
    previousSecretExpiresAt: row.previousSecretExpiresAt,
    createdAt: row.callbackCreatedAt,
    disabledAt: row.disabledAt,
    disabledReason: row.disabledReason,
  },
  heldBack: row.heldBack,
  heldBackUntil: row.heldBackUntil,
});

export interface WebhookDeliveryRepositoryOptions {
  /**
   * Coalesce concurrent findForDelivery and recordAttempt calls into one statement per batch (the
   * webhook worker's many concurrent jobs); without it every call is its own statement.
   */
  coalesce?: BatcherOptions;
}

/** Splits attempts so that no delivery appears twice in one statement (the UPDATE would count it once). */
function distinctRounds<T extends { deliveryId: string }>(items: readonly T[]): { item: T; index: number }[][] {
  const rounds: { item: T; index: number }[][] = [];
  const seen: Set<string>[] = [];
  items.forEach((item, index) => {
    let r = seen.findIndex((ids) => !ids.has(item.deliveryId));
    if (r === -1) {
      r = rounds.length;
      rounds.push([]);
      seen.push(new Set());
    }
    seen[r]?.add(item.deliveryId);
    rounds[r]?.push({ item, index });
  });
  return rounds;
}

/** What asking for a delivery again did (POST …/redeliver). */
export type Redelivery =
  | { outcome: "redelivering"; eventId: string; previousStatus: Exclude<WebhookDeliveryStatus, "ABANDONED"> }
  /** No such delivery of that registration of that project. */
  | { outcome: "not-found" }
  /** The registration is disabled (deleted, or a 410 from the receiver), or the delivery was abandoned with it. */
  | { outcome: "disabled"; previousStatus: WebhookDeliveryStatus };

export function createWebhookDeliveryRepository(sql: Sql, options: WebhookDeliveryRepositoryOptions = {}) {
  const finish = async (id: string, status: Exclude<WebhookDeliveryStatus, "PENDING">): Promise<boolean> =>
    (await sql.query({ name: "webhookDelivery.finish", text: FINISH_DELIVERY }, [id, status])).rowCount === 1;

  /** Each id's delivery input, in the order given; null for an unknown id. */
  const findManyForDelivery = async (ids: readonly string[]): Promise<(DeliveryInput | null)[]> => {
    const result = await sql.query<DeliveryRow>({ name: "webhookDelivery.findForDelivery", text: FIND_FOR_DELIVERY }, [ids]);
    const byId = new Map(result.rows.map((row) => [row.id, row]));
    return ids.map((id) => {
      const row = byId.get(id);
      return row ? toDeliveryInput(row) : null;
    });
  };

  /** Each attempt recorded, in the order given; null for an unknown delivery. */
  const recordAttempts = async (attempts: readonly { deliveryId: string; attempt: AttemptInput }[]): Promise<(RecordedAttempt | null)[]> => {
    const recorded: (RecordedAttempt | null)[] = attempts.map(() => null);
    for (const round of distinctRounds(attempts)) {
      const result = await sql.query<WebhookDeliveryRecord & { applied: boolean }>(
        { name: "webhookDelivery.recordAttempts", text: RECORD_ATTEMPTS },
        [
          round.map(({ item }) => item.deliveryId),
          round.map(({ item }) => item.attempt.next.status),
          round.map(({ item }) => (item.attempt.next.status === "PENDING" ? item.attempt.next.nextAttemptAt : null)),
          round.map(({ item }) => JSON.stringify(item.attempt.data)),
          round.map(({ item }) => item.attempt.responseStatus),
        ],
      );
      const byId = new Map(result.rows.map((row) => [row.id, row]));
      for (const { item, index } of round) {
        const row = byId.get(item.deliveryId);
        recorded[index] = row ? { delivery: toDelivery(row), applied: row.applied } : null;
      }
    }
    return recorded;
  };

  const findOne = options.coalesce
    ? createBatcher(findManyForDelivery, options.coalesce)
    : async (id: string) => (await findManyForDelivery([id]))[0] ?? null;
  const recordOne = options.coalesce
    ? createBatcher(recordAttempts, options.coalesce)
    : async (a: { deliveryId: string; attempt: AttemptInput }) => (await recordAttempts([a]))[0] ?? null;

  return {
    /** The delivery with the event's payload, the registration's sealed secret and whether it is held back; null if unknown. */
    findForDelivery: (id: string): Promise<DeliveryInput | null> => findOne(id),
    findManyForDelivery,

    /**
     * One attempt: its stats entry `{eventId, deliveryId, attempt, ...data}` and the delivery's
     * attempt count, status and next attempt, in one statement. Null when the delivery is unknown.
     */
    recordAttempt: (deliveryId: string, attempt: AttemptInput): Promise<RecordedAttempt | null> => recordOne({ deliveryId, attempt }),
    recordAttempts,

    /** The delivery due again now; see REDELIVER. The caller wakes its job. */
    redeliver: async (projectId: string, eventCallbackId: string, deliveryId: string): Promise<Redelivery> => {
      const { rows } = await sql.query<{ eventId: string; previousStatus: WebhookDeliveryStatus; active: boolean; changed: boolean }>(
        { name: "webhookDelivery.redeliver", text: REDELIVER },
        [projectId, eventCallbackId, deliveryId],
      );
      const row = rows[0];
      if (!row) return { outcome: "not-found" };
      // An ABANDONED delivery is one of a disabled registration: it does not change.
      if (!row.changed || row.previousStatus === "ABANDONED") return { outcome: "disabled", previousStatus: row.previousStatus };
      return { outcome: "redelivering", eventId: row.eventId, previousStatus: row.previousStatus };
    },

    /** PENDING → DELIVERED without an attempt record; false when it was not PENDING. */
    markDelivered: (id: string): Promise<boolean> => finish(id, "DELIVERED"),
    /** PENDING → FAILED (given up); false when it was not PENDING. */
    markFailed: (id: string): Promise<boolean> => finish(id, "FAILED"),
    /** PENDING → ABANDONED (the registration is disabled); false when it was not PENDING. */
    abandon: (id: string): Promise<boolean> => finish(id, "ABANDONED"),

    /**
     * PENDING deliveries due before `dueBefore`, earliest first (then by id): what the reconciler
     * re-enqueues. With `after`, those that come after that one in this order.
     */
    findDue: async (query: {
      dueBefore: Date;
      limit: number;
      after?: Pick<WebhookDeliveryRecord, "nextAttemptAt" | "id"> | undefined;
    }): Promise<WebhookDeliveryRecord[]> => {
      const { after } = query;
      const result = await sql.query<WebhookDeliveryRecord>({ name: "webhookDelivery.findDue", text: FIND_DUE }, [
        query.dueBefore,
        query.limit,
        after?.nextAttemptAt ?? null,
        after?.id ?? null,
      ]);
      return result.rows.map(toDelivery);
    },
  };
}

export type WebhookDeliveryRepository = ReturnType<typeof createWebhookDeliveryRepository>;
