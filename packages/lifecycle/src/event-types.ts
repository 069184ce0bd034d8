/**
 * The events a project can register a callback for (docs/webhooks.md). The Postgres enum
 * "EventType" in prisma/schema.prisma must name the same ones (a test in packages/db holds them
 * together); the payload of each is in @relay/webhooks.
 */
export const EVENT_TYPES = ["TransactionStatusChange", "WalletBalanceLow"] as const;

export type EventType = (typeof EVENT_TYPES)[number];
