import { z } from "zod";
import { TRANSACTION_STATUSES } from "@relay/lifecycle";

/**
 * The bodies POSTed to callback URLs (docs/webhooks.md, "Payloads"): an envelope
 * `{id, eventType, projectId, createdAt, data}` whose `data` depends on `eventType`. `chainId` is a
 * number, as requests carry it (the relay takes only chain ids up to 2^53 - 1). Integers that can
 * pass 2^53 (block numbers, nonces, wei) are decimal strings, so receivers in any language read
 * them exactly. Objects are not strict: adding a field later must not break a receiver that
 * validates with these schemas.
 */

/**
 * The statuses as receivers see them: the lifecycle's, all of them. A new status changes this
 * published contract too; the lifecycle's test, which spells the list out, makes that a
 * deliberate change.
 */
const status = z.enum(TRANSACTION_STATUSES);

const decimal = z.string().regex(/^(0|[1-9][0-9]*)$/, "a non-negative decimal integer string");
const chainId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER).meta({ description: "Chain id, a number as in requests", example: 31337 });
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "a 0x-prefixed 20-byte address");
const txHash = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "a 0x-prefixed 32-byte hash");

const envelope = {
  /** The event id; also the `webhook-id` header, the same on every retry. */
  id: z.uuid(),
  projectId: z.uuid(),
  /** When the event happened (not when it was delivered), ISO 8601 UTC. */
  createdAt: z.iso.datetime(),
};

export const transactionStatusChangeDataSchema = z.object({
  transactionId: z.uuid(),
  chainId,
  status,
  /** null on the first event of a transaction (PENDING). */
  previousStatus: status.nullable(),
  /** The hash of the latest broadcast attempt; null before the first broadcast. */
  hash: txHash.nullable(),
  /** The block that mined it; null until mined. */
  blockNumber: decimal.nullable(),
  /** The project wallet sending it; null until one is chosen. */
  from: address.nullable(),
  nonce: decimal.nullable(),
  /** Why it is INVALID, PAUSED, REVERTED or FAILED; null otherwise. */
  reason: z.string().nullable(),
});

export const walletBalanceLowDataSchema = z.object({
  walletAddress: address,
  chainId,
  /** Wei. */
  balance: decimal,
  /** Wei: the chain's low-balance threshold the balance fell below. */
  threshold: decimal,
});

export const transactionStatusChangeEventSchema = z.object({
  ...envelope,
  eventType: z.literal("TransactionStatusChange"),
  data: transactionStatusChangeDataSchema,
});

export const walletBalanceLowEventSchema = z.object({
  ...envelope,
  eventType: z.literal("WalletBalanceLow"),
  data: walletBalanceLowDataSchema,
});

export const webhookEventSchema = z.discriminatedUnion("eventType", [transactionStatusChangeEventSchema, walletBalanceLowEventSchema]);

export type WebhookTransactionStatus = z.infer<typeof status>;
export type TransactionStatusChangeData = z.infer<typeof transactionStatusChangeDataSchema>;
export type WalletBalanceLowData = z.infer<typeof walletBalanceLowDataSchema>;
export type TransactionStatusChangeEvent = z.infer<typeof transactionStatusChangeEventSchema>;
export type WalletBalanceLowEvent = z.infer<typeof walletBalanceLowEventSchema>;
export type WebhookEvent = z.infer<typeof webhookEventSchema>;
