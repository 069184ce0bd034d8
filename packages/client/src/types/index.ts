/**
 * Requests and answers of the relay's HTTP API, one file per area. Written out here so the
 * published package has no dependency on the gateway; e2e/client/types-conformance.ts holds them
 * to the gateway's zod schemas (and the events to packages/webhooks') at compile time: a field
 * added or renamed there fails the type check until it is here.
 */
export * from "./transactions";
export * from "./signing";
export * from "./wallets";
export * from "./syndicate-reads";
export * from "./webhooks";
export * from "./policies";
