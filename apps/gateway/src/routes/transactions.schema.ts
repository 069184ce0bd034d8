import { z } from "zod";
import { ABI_LIMITS } from "@relay/chain";
import { TRANSACTION_STATUSES } from "@relay/lifecycle";
import { evmAddress, omittable, uuid } from "../http-schemas";

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
    error: z.string().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
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
