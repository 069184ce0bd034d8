import { z } from "zod";
import { uuid } from "../http-schemas";
import { ATTEMPT_STATUSES } from "./syndicate-status";

/** Requests and schemas of Syndicate's transaction reads (docs/syndicate.md). */

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 10;
/** Longest `search` accepted: more than any id, hash, address or function signature needs. */
export const MAX_SEARCH_LENGTH = 1024;

export const requestParams = z.object({
  projectId: uuid("projectId in the path must be a UUID").meta({ description: "Project id (UUID)" }),
  transactionId: uuid("transactionId in the path must be a UUID").meta({ description: "The request's transactionId (UUID)" }),
});

// Query values arrive as text; a parameter given twice arrives as an array, which no schema takes
// but `status`.
const single = (name: string, what: string) => z.string({ error: `${name} must be ${what}, given once` });

const page = single("page", "a non-negative integer")
  .regex(/^\d{1,9}$/, "page must be a non-negative integer (0 is the first page)")
  .transform(Number)
  .optional()
  .meta({ description: "Page number, 0 for the first (default 0)", type: "integer", minimum: 0, example: 0 });

const limit = single("limit", `an integer from 1 to ${MAX_PAGE_SIZE}`)
  .regex(/^\d{1,9}$/, `limit must be an integer from 1 to ${MAX_PAGE_SIZE}`)
  .transform(Number)
  .refine((n) => n >= 1 && n <= MAX_PAGE_SIZE, `limit must be an integer from 1 to ${MAX_PAGE_SIZE}`)
  .optional()
  .meta({ description: `Items per page, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE})`, type: "integer", minimum: 1, maximum: MAX_PAGE_SIZE, example: 10 });

const flag = (name: string, description: string) =>
  z
    .enum(["true", "false"], { error: `${name} must be true or false` })
    .transform((v) => v === "true")
    .optional()
    .meta({ description });

const search = (description: string) =>
  single("search", "text")
    .max(MAX_SEARCH_LENGTH, `search must be at most ${MAX_SEARCH_LENGTH} characters`)
    .transform((s) => s.trim() || undefined)
    .optional()
    .meta({ description });

const statusValue = z.enum(ATTEMPT_STATUSES, { error: `status must be one of ${ATTEMPT_STATUSES.join(", ")}` });

export const requestsQuery = z.strictObject({
  search: search("Finds the request with this transactionId, those to this contract address (any case), and those whose function signature contains this text"),
  page,
  limit,
  invalid: flag("invalid", "true: only requests simulation refused (nothing sent); false: only the others"),
});

export const attemptsQuery = z.strictObject({
  search: search("Finds the attempt with this hash, the attempts from this wallet address (any case), and the attempts of this transactionId"),
  page,
  limit,
  reverted: flag("reverted", "true: only attempts mined and reverted; false: only the others"),
  status: z
    .union([statusValue, z.array(statusValue, { error: "status must be a status or several" })], { error: `status must be one of ${ATTEMPT_STATUSES.join(", ")}` })
    .transform((s) => (Array.isArray(s) ? s : [s]))
    .optional()
    .meta({ description: "Only attempts in this status; repeat the parameter for several" }),
});

const attempt = z
  .object({
    transactionId: z.uuid(),
    hash: z.string(),
    chainId: z.number().int(),
    version: z.number().int().meta({ description: "0 for the request's first attempt, 1 for its first replacement…" }),
    status: z.enum(ATTEMPT_STATUSES),
    block: z.number().int().meta({ description: "Block the attempt was mined in; 0 while not known to be mined" }),
    signedTxn: z.string().meta({ description: "The signed transaction as broadcast, 0x hex" }),
    walletAddress: z.string(),
    reverted: z.boolean(),
    nonce: z.number().int(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: "SyndicateTransactionAttempt" });

export const syndicateTransactionResponse = z
  .object({
    transactionId: z.uuid(),
    chainId: z.number().int(),
    projectId: z.uuid(),
    invalid: z.boolean(),
    contractAddress: z.string(),
    functionSignature: z.string(),
    data: z.string().meta({ description: "Calldata, 0x hex" }),
    decodedData: z.record(z.string(), z.unknown()).meta({ description: "The arguments keyed by parameter name (index when unnamed); tuples as objects" }),
    value: z.string().meta({ description: "Wei, decimal" }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    transactionAttempts: z.array(attempt),
  })
  .meta({ id: "SyndicateTransactionResponse" });

export const transactionRequestsResponse = z
  .object({ transactionRequests: z.array(syndicateTransactionResponse), total: z.number().int() })
  .meta({ id: "SyndicateTransactionRequestsResponse" });

export const transactionAttemptsResponse = z
  .object({ transactionAttempts: z.array(attempt), total: z.number().int() })
  .meta({ id: "SyndicateTransactionsResponse" });

export const transactionStatsResponse = z
  .object({
    numberOfConfirmedTransactions: z.number().int(),
    numberOfSubmittedTransactions: z.number().int(),
    numberOfPendingTransactions: z.number().int(),
    numberOfFailedTransactions: z.number().int(),
  })
  .meta({ id: "SyndicateTransactionStats" });
