import { z } from "zod";
import { TRANSACTION_STATUSES, type TransactionStatus } from "@relay/lifecycle";
import { evmAddress, uuid } from "../http-schemas";
import { transactionRecordResponse } from "./transactions.schema";

/** Requests and answers of the transaction list (docs/transactions.md, "Listing transactions"). */

export const MAX_LIST_LIMIT = 100;
export const DEFAULT_LIST_LIMIT = 20;

export const transactionListParams = z.object({
  projectId: uuid("projectId in the path must be a UUID").meta({ description: "Project id (UUID)" }),
});

// Query values arrive as text; a parameter given twice arrives as an array, which only `status` takes.
const once = (name: string, what: string) => z.string({ error: `${name} must be ${what}, given once` });

const isStatus = (value: string): value is TransactionStatus => (TRANSACTION_STATUSES as readonly string[]).includes(value);

/** An ISO 8601 time with a UTC offset (Z or ±hh:mm), named in the 400 when it is not one. */
const instant = (name: string, description: string) =>
  once(name, "an ISO 8601 time")
    .pipe(z.iso.datetime({ offset: true, error: `${name} must be an ISO 8601 time with a zone, e.g. 2026-11-26T16:00:00Z` }))
    .transform((s) => new Date(s))
    .optional()
    .meta({ description, example: "2026-11-26T16:00:00Z" });

export const transactionListQuery = z.strictObject({
  status: z
    .union([once("status", "a status"), z.array(z.string({ error: "status must be text" }), { error: "status must be a status or several" })])
    .transform((s, ctx) => {
      const values = (Array.isArray(s) ? s : [s]).flatMap((v) => v.split(","));
      if (values.length > 4 * TRANSACTION_STATUSES.length || !values.every(isStatus)) {
        ctx.addIssue({ code: "custom", message: `status must be one or several of ${TRANSACTION_STATUSES.join(", ")}` });
        return z.NEVER;
      }
      return values;
    })
    .optional()
    .meta({ description: "Only transactions in these statuses: repeat the parameter, or separate with commas", example: "SUBMITTED,PAUSED" }),
  chainId: once("chainId", "a positive integer")
    .regex(/^[1-9]\d{0,15}$/, "chainId must be a positive integer")
    .transform((s) => BigInt(s))
    .refine((n) => n <= BigInt(Number.MAX_SAFE_INTEGER), "chainId is too large")
    .optional()
    .meta({ description: "Only transactions on this chain", type: "integer", example: 31337 }),
  fromAddress: once("fromAddress", "an address")
    .pipe(evmAddress("fromAddress"))
    .optional()
    .meta({ description: "Only transactions sent by this project wallet (any case)" }),
  createdAfter: instant("createdAfter", "Only transactions created at or after this time"),
  createdBefore: instant("createdBefore", "Only transactions created before this time"),
  limit: once("limit", `an integer from 1 to ${MAX_LIST_LIMIT}`)
    .regex(/^\d{1,9}$/, `limit must be an integer from 1 to ${MAX_LIST_LIMIT}`)
    .transform(Number)
    .refine((n) => n >= 1 && n <= MAX_LIST_LIMIT, `limit must be an integer from 1 to ${MAX_LIST_LIMIT}`)
    .optional()
    .meta({ description: `Transactions per page, 1 to ${MAX_LIST_LIMIT} (default ${DEFAULT_LIST_LIMIT})`, type: "integer", minimum: 1, maximum: MAX_LIST_LIMIT }),
  cursor: once("cursor", "text")
    .optional()
    .meta({ description: "nextCursor of the previous page, unchanged; omitted for the first page" }),
});

export const transactionListItem = transactionRecordResponse.omit({ history: true, attempts: true }).meta({ id: "TransactionListItem" });

export const transactionListResponse = z
  .object({
    transactions: z.array(transactionListItem).meta({ description: "Newest first (by createdAt, then transactionId)" }),
    nextCursor: z.string().nullable().meta({ description: "Pass as `cursor` for the next page; null on the last page" }),
  })
  .meta({ id: "TransactionList" });
