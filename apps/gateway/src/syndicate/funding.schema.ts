import { z } from "zod";
import { uuid } from "../http-schemas";

/** Most top-ups one page of the funding endpoint holds. */
export const MAX_FUNDING_PAGE = 100;

/** A query parameter that is a whole number in [min, max], named in the 400 when it is not. */
const wholeNumber = (name: string, min: number, max: number, fallback: number, description: string) =>
  z
    .string({ error: `${name} must be a whole number from ${min} to ${max}` })
    .regex(/^\d{1,9}$/, `${name} must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `${name} must be a whole number from ${min} to ${max}`)
    .optional()
    .transform((n) => n ?? fallback)
    .meta({ description });

export const fundingParams = z.object({
  projectId: uuid("projectId in the path must be a UUID").meta({ description: "Project whose wallets were topped up" }),
});

/** Syndicate's paging: `page` counts from 0, `limit` top-ups a page. Other parameters are ignored. */
export const fundingQuery = z.object({
  page: wholeNumber("page", 0, 1_000_000_000 - 1, 0, "Page, from 0 (default 0)"),
  limit: wholeNumber("limit", 1, MAX_FUNDING_PAGE, 10, `Top-ups per page, 1 to ${MAX_FUNDING_PAGE} (default 10)`),
});

const FUNDING_STATUSES = ["PENDING", "SUBMITTED", "CONFIRMED", "FAILED"] as const;

/** Syndicate's funding.Transaction, field for field (its SDK's serialization schema). */
export const fundingTransaction = z
  .object({
    id: z.uuid(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    chainId: z.number(),
    projectId: z.uuid().meta({ description: "The project whose wallet was topped up" }),
    fromAddress: z.string().meta({ description: "The funding wallet" }),
    toAddress: z.string().meta({ description: "The project wallet topped up" }),
    amount: z.string().meta({ description: "Wei sent, a decimal string" }),
    hash: z.string().meta({ description: "Hash of the attempt the top-up carries; empty before one is broadcast" }),
    signedTxn: z.string().meta({ description: "That attempt's signed transaction, 0x hex; empty before one is broadcast" }),
    block: z.number().meta({ description: "Block it was mined in; 0 until then" }),
    status: z.enum(FUNDING_STATUSES),
  })
  .meta({ id: "FundingTransaction" });

export const fundingTransactionsResponse = z
  .object({ transactions: z.array(fundingTransaction), total: z.number().meta({ description: "Top-ups of the project in all" }) })
  .meta({ id: "FundingTransactionsByProjectResponse" });

export type FundingTransaction = z.output<typeof fundingTransaction>;
export type FundingStatus = (typeof FUNDING_STATUSES)[number];
