import { z } from "zod";
import { ABI_LIMITS, ERROR_SIGNATURE_LIMITS } from "@relay/chain";
import { TRANSACTION_STATUSES } from "@relay/lifecycle";
import { evmAddress, omittable, uuid } from "../http-schemas";
import { transactionReceiptResponse } from "./transaction-receipt.schema";

/** The gas limits a request may name: a plain transfer's cost, up to a 30M-gas block. */
export const GAS_LIMIT_RANGE = { min: 21_000, max: 30_000_000 } as const;

const MAX_UINT256 = (1n << 256n) - 1n;

/** An amount of wei as a decimal string (a JSON number loses precision past 2^53), into a bigint. */
const weiString = (field: string, { positive = false } = {}) =>
  z.string({ error: `${field} must be an integer number of wei, as a decimal string` }).transform((text, ctx) => {
    if (!/^[0-9]{1,78}$/.test(text) || BigInt(text) > MAX_UINT256) {
      const what = text.startsWith("-") ? "must not be negative" : "must be an integer number of wei between 0 and 2^256-1, as a decimal string";
      ctx.addIssue({ code: "custom", message: `${field} ${what}` });
      return z.NEVER;
    }
    const wei = BigInt(text);
    if (positive && wei === 0n) {
      ctx.addIssue({ code: "custom", message: `${field} must be above 0` });
      return z.NEVER;
    }
    return wei;
  });

/** An ISO 8601 date-time with a zone (Z or an offset), still ahead, into a Date. */
const futureDateTime = (field: string) =>
  z
    .iso.datetime({ offset: true, error: `${field} must be an ISO 8601 date-time with a time zone, e.g. 2030-01-01T00:00:00Z` })
    .transform((text, ctx) => {
      const at = new Date(text);
      if (at.getTime() <= Date.now()) {
        ctx.addIssue({ code: "custom", message: `${field} is in the past` });
        return z.NEVER;
      }
      return at;
    });

export const sendTransactionRequest = z
  .strictObject({
    projectId: uuid("projectId must be a UUID").meta({ description: "Project the request is sent from" }),
    contractAddress: evmAddress("contractAddress"),
    chainId: z
      // An integer past 2^53 arrives exact, as a BigInt (middleware/exact-numbers.ts).
      .number({ error: (issue) => (typeof issue.input === "bigint" ? "chainId is too large" : "chainId must be an integer") })
      .int("chainId must be an integer")
      .positive("chainId must be positive")
      .max(Number.MAX_SAFE_INTEGER, "chainId is too large")
      .meta({ description: "Chain id, e.g. 1 for Ethereum mainnet", example: 31337 }),
    functionSignature: z
      .string({ error: "functionSignature must be a string" })
      .min(1, "functionSignature must not be empty")
      .meta({ description: "Human-readable signature, `function` keyword optional; tuples with named components", example: "transfer(address to, uint256 amount)" }),
    requestId: omittable(uuid("requestId must be a UUID")).meta({
      description: "Your id for the request; returned as transactionId. Reuse answers 409. Null or omitted: one is generated.",
    }),
    args: omittable(z.record(z.string(), z.unknown(), { error: "args must be an object keyed by argument name or index" })).meta({
      description:
        "Arguments by name or index; a tuple's value is an object keyed by component name. Null or omitted: none. " +
        `At most ${ABI_LIMITS.arrayLength} elements per array, ${ABI_LIMITS.values} values in all (elements, arrays and tuples counted), ` +
        `and ${ABI_LIMITS.calldataBytes} bytes of encoded calldata, selector included (nodes refuse a signed transaction over 128 KiB); beyond them, 400.`,
    }),
    errorSignatures: omittable(
      z
        .array(
          z
            .string({ error: "errorSignatures must be an array of strings" })
            .max(ERROR_SIGNATURE_LIMITS.length, `each of errorSignatures must be at most ${ERROR_SIGNATURE_LIMITS.length} characters`),
          { error: "errorSignatures must be an array of strings" },
        )
        .max(ERROR_SIGNATURE_LIMITS.count, `errorSignatures must have at most ${ERROR_SIGNATURE_LIMITS.count} entries`),
    ).meta({
      description:
        "The contract's custom errors, human-readable (`error` keyword optional), so that a revert is reported by error name and arguments " +
        "rather than by selector. Null or omitted: none. A signature ethers cannot read is a 400 naming it.",
      example: ["error InsufficientBalance(uint256 available, uint256 required)"],
    }),
    // Optional fields beyond the contract (docs/transactions.md, "Optional request fields"):
    // null or omitted is today's behaviour.
    value: omittable(weiString("value")).meta({
      description: "Wei sent with the call, for a payable function: a decimal string. Null or omitted: 0.",
      example: "1000000000000000",
    }),
    fromAddress: omittable(evmAddress("fromAddress")).meta({
      description: "The project wallet that must send it (active, of this project; else 400). Null or omitted: the relay picks one of the project's wallets.",
    }),
    gasLimit: omittable(
      z
        .number({ error: "gasLimit must be an integer" })
        .int("gasLimit must be an integer")
        .min(GAS_LIMIT_RANGE.min, `gasLimit must be at least ${GAS_LIMIT_RANGE.min}`)
        .max(GAS_LIMIT_RANGE.max, `gasLimit must be at most ${GAS_LIMIT_RANGE.max}`),
    ).meta({
      description: `Gas limit signed as is instead of the estimate (the call is still simulated first), ${GAS_LIMIT_RANGE.min} to ${GAS_LIMIT_RANGE.max}. Null or omitted: estimated.`,
      example: 200000,
    }),
    maxFeePerGas: omittable(weiString("maxFeePerGas", { positive: true })).meta({
      description:
        "The most this transaction pays per gas, in wei (a decimal string); replacements stay within it too. While the market is above it the transaction waits unsent, with no nonce taken. Null or omitted: only the chain's cap applies.",
      example: "30000000000",
    }),
    expiresAt: omittable(futureDateTime("expiresAt")).meta({
      description:
        "ISO 8601 date-time with a time zone. Not signed after this time: it ends EXPIRED instead of going out late. Once signed and sent it follows its course to the end. Null or omitted: no expiry.",
      example: "2030-01-01T00:00:00Z",
    }),
  })
  .meta({ id: "SendTransactionRequest" });

export const sendTransactionResponse = z.object({ transactionId: z.uuid() }).meta({ id: "SendTransactionResponse" });

export const duplicateTransactionBody = z
  .object({ message: z.string(), transactionId: z.uuid() })
  .meta({ id: "DuplicateTransactionError" });

export const transactionParams = z.object({
  projectId: uuid("projectId in the path must be a UUID"),
  transactionId: uuid("transactionId in the path must be a UUID"),
});

export const transactionRecordResponse = z
  .object({
    transactionId: z.uuid(),
    projectId: z.uuid(),
    chainId: z.number(),
    contractAddress: z.string(),
    functionSignature: z.string(),
    args: z.unknown(),
    calldata: z.string(),
    status: z.enum(TRANSACTION_STATUSES),
    from: z.string().nullable(),
    nonce: z.string().nullable(),
    hash: z.string().nullable(),
    blockNumber: z.string().nullable(),
    error: z.string().nullable().meta({ description: "Why it is INVALID, PAUSED, REVERTED or FAILED; a revert decoded: an Error(string) message, a panic code and its meaning, a custom error by name and arguments or by selector" }),
    revertData: z.string().nullable().meta({ description: "The raw revert data behind `error`, 0x-hex; null when none was recorded" }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    receipt: transactionReceiptResponse,
    history: z.array(z.object({ status: z.string(), previousStatus: z.string().nullable(), reason: z.string().nullable(), at: z.iso.datetime() })),
    attempts: z.array(
      z.object({
        hash: z.string(),
        nonce: z.string(),
        type: z.number(),
        gasLimit: z.string(),
        maxFeePerGas: z.string().nullable(),
        maxPriorityFeePerGas: z.string().nullable(),
        gasPrice: z.string().nullable(),
        createdAt: z.iso.datetime(),
        broadcastAt: z.iso.datetime().nullable(),
        cancel: z.boolean().meta({ description: "A cancel: a zero-value transfer of the wallet to itself at the nonce, not the call (POST …/cancel)" }),
      }),
    ),
  })
  .meta({ id: "TransactionRecord" });

export type SendTransactionRequest = z.output<typeof sendTransactionRequest>;
